// settings: Keyword Tracker settings
import { SettingsForm, useSettings } from "@host/sdk/ui";

export default function Settings() {
  const [values, save, saving] = useSettings();
  return (
    <SettingsForm
      title="Keyword Tracker settings"
      values={values}
      disabled={saving}
      onSubmit={save}
    />
  );
}
