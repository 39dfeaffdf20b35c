/**
 * Colours of statuses and severities, in two palettes: the default one and a colour-blind safe
 * one (Okabe–Ito), chosen so the hues stay apart for protan, deutan and tritan vision. Text on
 * these colours is black or white, whichever contrasts more (`readableText`), and every badge and chart
 * also names the status, so colour is never the only cue.
 */
import type { ApiSeverity, ApiStatus } from "@kyverno-ts/reporter";

/** The palette names. */
export type PaletteName = "default" | "colorblind";

/** Colours per status and per severity. */
export interface Palette {
  status: Record<ApiStatus, string>;
  severity: Record<ApiSeverity | "unknown", string>;
}

/** The palettes. */
export const PALETTES: Record<PaletteName, Palette> = {
  default: {
    status: { pass: "#2b8a3e", fail: "#c92a2a", warn: "#f08c00", error: "#862e9c", skip: "#868e96" },
    severity: {
      info: "#1971c2",
      low: "#0ca678",
      medium: "#fab005",
      high: "#f76707",
      critical: "#c92a2a",
      unknown: "#868e96",
    },
  },
  colorblind: {
    status: { pass: "#0072B2", fail: "#D55E00", warn: "#E69F00", error: "#CC79A7", skip: "#999999" },
    severity: {
      info: "#56B4E9",
      low: "#009E73",
      medium: "#F0E442",
      high: "#E69F00",
      critical: "#D55E00",
      unknown: "#999999",
    },
  },
};
