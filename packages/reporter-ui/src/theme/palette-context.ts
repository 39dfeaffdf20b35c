/** The active palette (default or colour-blind), chosen by the user and kept in localStorage. */
import { createContext, useContext } from "react";
import { PALETTES, type Palette, type PaletteName } from "./palette.ts";

/** The palette state shared by badges and charts. */
export interface PaletteState {
  name: PaletteName;
  palette: Palette;
  setName: (name: PaletteName) => void;
}

/** Set by `ThemeRoot`; defaults to the default palette (tests, storybook-like use). */
export const PaletteContext = createContext<PaletteState>({
  name: "default",
  palette: PALETTES.default,
  setName: () => {},
});

/** The active palette. */
export function usePalette(): PaletteState {
  return useContext(PaletteContext);
}

/** The localStorage key of the palette choice. */
export const PALETTE_STORAGE_KEY = "policy-reporter-palette";

/** Reads the stored palette name (default when unset or unreadable). */
export function storedPalette(): PaletteName {
  try {
    return localStorage.getItem(PALETTE_STORAGE_KEY) === "colorblind" ? "colorblind" : "default";
  } catch {
    return "default";
  }
}
