// page: Opportunities
import { Surface, useHost } from "@host/sdk/ui";

export default function OpportunitiesPage() {
  const { context, data } = useHost();
  const rows = data.useLatest();
  return (
    <Surface title="Opportunities" loading={rows === undefined}>
      <p>
        {context.platform === "all" ? "All platforms" : context.platform}, {rows?.length ?? 0} rows
      </p>
    </Surface>
  );
}
