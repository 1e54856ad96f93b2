// page: Keyword rankings
import { Surface, useHost } from "@host/sdk/ui";

export default function RankingsPage() {
  const { context, data } = useHost();
  const rows = data.useLatest();
  return (
    <Surface title="Keyword rankings" loading={rows === undefined}>
      <p>
        {context.platform === "all" ? "All platforms" : context.platform}, {rows?.length ?? 0} rows
      </p>
    </Surface>
  );
}
