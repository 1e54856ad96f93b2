// widget: Rank movers
import { Surface, useHost } from "@host/sdk/ui";

export default function RankMoversWidget() {
  const { context, data } = useHost();
  const rows = data.useLatest();
  return (
    <Surface title="Rank movers" loading={rows === undefined}>
      <p>
        {context.platform === "all" ? "All platforms" : context.platform}, {rows?.length ?? 0} rows
      </p>
    </Surface>
  );
}
