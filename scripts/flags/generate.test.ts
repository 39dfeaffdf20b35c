/** docs/flags.md is generated from the flag table and up to date; it lists every flag once. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FLAGS } from "../../packages/server/src/flags/catalog.ts";
import { FLAGS_DOC, flagsDoc, flagsDocOutdated, REPO_ROOT } from "./generate.ts";

describe("docs/flags.md", () => {
  it("matches the flag table (run node scripts/flags/generate.ts)", () => {
    expect(flagsDocOutdated()).toBe(false);
  });

  it("has one row per flag, with its status", () => {
    const rows = flagsDoc()
      .split("\n")
      .filter((l) => l.startsWith("| `--"));
    expect(rows).toHaveLength(FLAGS.length);
    const doc = readFileSync(join(REPO_ROOT, FLAGS_DOC), "utf8");
    const cells = (flag: string) =>
      doc
        .split("\n")
        .find((l) => l.startsWith(`| \`--${flag}\``))
        ?.split("|")
        .slice(1, 6)
        .map((c) => c.trim());
    expect(cells("webhookTimeout")).toEqual(["`--webhookTimeout`", "`10`", "A", "int", "implemented"]);
    expect(cells("dumpPayload")).toEqual([
      "`--dumpPayload`",
      "`false`",
      "AC",
      "bool",
      "no effect: AdmissionReview payloads are not logged yet",
    ]);
  });
});
