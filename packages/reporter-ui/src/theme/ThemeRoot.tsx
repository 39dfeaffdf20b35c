/** Mantine's provider with the dashboard theme, the colour scheme manager and the palette. */
import {
  type CSSVariablesResolver,
  createTheme,
  localStorageColorSchemeManager,
  MantineProvider,
} from "@mantine/core";
import { type ReactNode, useMemo, useState } from "react";
import { PALETTES, type PaletteName } from "./palette.ts";
import { PALETTE_STORAGE_KEY, PaletteContext, storedPalette } from "./palette-context.ts";

const theme = createTheme({
  primaryColor: "indigo",
  primaryShade: { light: 7, dark: 4 },
  fontFamily: "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif",
  defaultRadius: "sm",
  focusRing: "always",
});

/** Dimmed text darker (light) and lighter (dark) than Mantine's defaults, to reach 4.5:1 on stripes. */
const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: { "--mantine-color-dimmed": "#5c5f66" },
  dark: { "--mantine-color-dimmed": "#a6a7ab" },
});

const colorSchemeManager = localStorageColorSchemeManager({ key: "policy-reporter-color-scheme" });

/** Wraps the app in the theme; `children` see the palette through `usePalette`. */
export function ThemeRoot({ children }: { children: ReactNode }) {
  const [name, setName] = useState<PaletteName>(storedPalette);
  const value = useMemo(
    () => ({
      name,
      palette: PALETTES[name],
      setName: (next: PaletteName) => {
        setName(next);
        try {
          localStorage.setItem(PALETTE_STORAGE_KEY, next);
        } catch {
          // Storage disabled: the choice lasts for this page only.
        }
      },
    }),
    [name],
  );
  return (
    <MantineProvider
      theme={theme}
      colorSchemeManager={colorSchemeManager}
      cssVariablesResolver={cssVariablesResolver}
      defaultColorScheme="light"
    >
      <PaletteContext.Provider value={value}>{children}</PaletteContext.Provider>
    </MantineProvider>
  );
}
