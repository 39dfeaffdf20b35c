import { describe, expect, it } from "vitest";
import { fnv1a64 } from "./fnv.js";

/** Straightforward BigInt FNV-1a 64 over TextEncoder bytes: the reference the fast version must match. */
function reference(input: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(input)) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(10);
}

describe("fnv1a64", () => {
  it.each([
    ["", "cbf29ce484222325"],
    ["a", "af63dc4c8601ec8c"],
    ["foobar", "85944171f73967e8"],
  ])("matches the published FNV-1a 64 vector for %j", (input, hex) => {
    expect(fnv1a64(input)).toBe(BigInt(`0x${hex}`).toString(10));
  });

  it("prints decimal like Go's strconv.FormatUint(h.Sum64(), 10)", () => {
    expect(fnv1a64("a")).toBe("12638187200555641996");
  });

  it("hashes the UTF-8 encoding (multi-byte, astral and lone surrogates)", () => {
    for (const input of [
      "namespace__name",
      "é",
      "ü-ñ",
      "日本語",
      "🚀 rocket",
      "x\uD800y",
      "\uDC00",
      "a".repeat(1000),
    ]) {
      expect(fnv1a64(input)).toBe(reference(input));
    }
  });
});
