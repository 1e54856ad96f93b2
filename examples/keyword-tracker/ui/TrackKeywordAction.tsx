// row action: Track this keyword
import { Surface, useHost } from "@host/sdk/ui";

export default function TrackKeywordAction() {
  const { context, data } = useHost();
  const rows = data.useLatest();
  return (
    <Surface title="Track this keyword" loading={rows === undefined}>
      <p>
        {context.platform === "all" ? "All platforms" : context.platform}, {rows?.length ?? 0} rows
      </p>
    </Surface>
  );
}
