// settings: Hello Panel settings
import { SettingsForm, useSettings } from "@host/sdk/ui";

export default function Settings() {
  const [values, save, saving] = useSettings();
  return (
    <SettingsForm
      title="Hello Panel settings"
      values={values}
      disabled={saving}
      onSubmit={save}
    />
  );
}
