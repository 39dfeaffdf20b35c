/** The header's theme controls: light / dark colour scheme and the colour-blind palette. */
import {
  Group,
  SegmentedControl,
  Switch,
  useComputedColorScheme,
  useMantineColorScheme,
} from "@mantine/core";
import { usePalette } from "./palette-context.ts";

/** Colour scheme and palette switches, each with a visible or screen-reader label. */
export function ThemeControls() {
  const { setColorScheme } = useMantineColorScheme();
  const scheme = useComputedColorScheme("light");
  const { name, setName } = usePalette();
  return (
    <Group gap="sm" wrap="nowrap">
      <SegmentedControl
        size="xs"
        aria-label="Colour scheme"
        value={scheme}
        onChange={(value) => setColorScheme(value === "dark" ? "dark" : "light")}
        data={[
          { value: "light", label: "Light" },
          { value: "dark", label: "Dark" },
        ]}
      />
      <Switch
        size="sm"
        aria-label="Colour-blind"
        label={<span className="wide-only">Colour-blind</span>}
        checked={name === "colorblind"}
        onChange={(event) => setName(event.currentTarget.checked ? "colorblind" : "default")}
      />
    </Group>
  );
}
