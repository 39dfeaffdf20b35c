import { describe, expect, it } from "vitest";
import { PALETTES } from "./palette.ts";
import { contrastRatio, readableText } from "./readable.ts";

describe("readableText", () => {
  it("gives every badge colour of both palettes text at 4.5:1 or more", () => {
    for (const palette of Object.values(PALETTES)) {
      for (const color of [...Object.values(palette.status), ...Object.values(palette.severity)]) {
        expect(contrastRatio(color, readableText(color)), color).toBeGreaterThanOrEqual(4.5);
      }
    }
  });

  it("computes WCAG ratios", () => {
    expect(contrastRatio("#000000", "#ffffff")).toBeCloseTo(21, 5);
    expect(contrastRatio("#777777", "#777777")).toBe(1);
    expect(readableText("#fab005")).toBe("#000000");
    expect(readableText("#1971c2")).toBe("#ffffff");
  });
});
