/**
 * WCAG contrast checks run in the page: the ratio of each chosen element's text colour to the
 * first opaque background behind it. Returned as plain data so the test can report failures.
 */
import type { Page } from "playwright-core";

/** One measured element. */
export interface ContrastSample {
  text: string;
  ratio: number;
}

/** Measures every element matching `selector` (visible ones, at most 200). */
export function measureContrast(page: Page, selector: string): Promise<ContrastSample[]> {
  return page.evaluate((sel) => {
    const parse = (c: string) => {
      const m = c.match(/rgba?\(([^)]+)\)/);
      if (!m?.[1]) return undefined;
      const [r = 0, g = 0, b = 0, a = 1] = m[1]
        .split(/[ ,/]+/)
        .filter(Boolean)
        .map(Number);
      return { r, g, b, a };
    };
    const lum = ({ r, g, b }: { r: number; g: number; b: number }) => {
      const f = (v: number) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const background = (el: Element | null) => {
      for (let e = el; e; e = e.parentElement) {
        const c = parse(getComputedStyle(e).backgroundColor);
        if (c && c.a > 0.9) return c;
      }
      return { r: 255, g: 255, b: 255, a: 1 };
    };
    return [...document.querySelectorAll(sel)]
      .filter((el) => (el as HTMLElement).offsetParent !== null && el.textContent?.trim())
      .slice(0, 200)
      .map((el) => {
        const fg = parse(getComputedStyle(el).color) ?? { r: 0, g: 0, b: 0, a: 1 };
        const bg = background(el);
        const [hi, lo] = [lum(fg), lum(bg)].sort((x, y) => y - x) as [number, number];
        return { text: el.textContent?.trim().slice(0, 40) ?? "", ratio: (hi + 0.05) / (lo + 0.05) };
      });
  }, selector);
}
