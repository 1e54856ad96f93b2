// tab: Keywords
import { Surface, useHost } from "@host/sdk/ui";

export default function KeywordsTab() {
  const { context, data } = useHost();
  const rows = data.useLatest();
  return (
    <Surface title="Keywords" loading={rows === undefined}>
      <p>
        {context.platform === "all" ? "All platforms" : context.platform}, {rows?.length ?? 0} rows
      </p>
    </Surface>
  );
}
