import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type ControllerName, FLAGS } from "./catalog.js";
import { parseFlags } from "./parse.js";

/** Upstream's flags table (installation/customization.md), when the reference docs are on this machine. */
const DOCS = fileURLToPath(
  new URL("../../../../../shared/reference/kyverno-docs/installation/customization.md", import.meta.url),
);
const LETTERS: Readonly<Record<string, ControllerName>> = {
  A: "admission",
  B: "background",
  C: "cleanup",
  R: "reports",
};

describe("the flag table", () => {
  it("describes each flag once, consistently", () => {
    const names = FLAGS.flatMap((f) => [f.name, ...(f.aliases ?? [])]);
    expect(new Set(names).size).toBe(names.length);
    for (const f of FLAGS) {
      for (const c of f.implemented) expect(f.controllers, f.name).toContain(c);
      if (f.implemented.length < f.controllers.length) expect(f.reason, f.name).toBeTruthy();
      // The help's value name in angle brackets: without them commander takes the flag for a switch
      // and drops its default from --help.
      if (f.value !== undefined) expect(f.value, f.name).toMatch(/^<[^<>]+>$/);
      // Each default and inert value is one the flag's own parser takes.
      for (const value of [f.default, f.inert].filter((v) => v !== undefined && v !== ""))
        expect(parseFlags(f.controllers[0] as ControllerName, [`--${f.name}=${value}`], {}).ok, f.name).toBe(
          true,
        );
    }
  });

  it.skipIf(!existsSync(DOCS))(
    "has every flag of upstream's Container Flags table, for its controllers, with its default",
    () => {
      const text = readFileSync(DOCS, "utf8");
      const table = text.slice(text.indexOf("### Container Flags"), text.indexOf("### HTTP Calls"));
      const rows = [...table.matchAll(/^\| `([^`]+)` \(([ABCR]+)\)\s*\|\s*([^|]*?)\s*\|/gm)];
      expect(rows.length).toBeGreaterThan(80);
      for (const [, name, letters, documented] of rows) {
        const spec = FLAGS.find((f) => f.name === name);
        expect(spec, `${name} is missing`).toBeDefined();
        const controllers = [...(letters as string)].map((l) => LETTERS[l]);
        expect([...(spec?.controllers ?? [])].sort(), name).toEqual(controllers.sort());
        // The documented default; a boolean documented without one is Go's false. Two documented
        // defaults are not upstream's code's: otelCollector (the table leaves it empty, its text names
        // it) and tracingPort (the table says 4137; the OTLP port upstream's code uses is 4317).
        const value = (documented as string)
          .replace(/^`|`$/g, "")
          .replace(/^"(.*)"$/, "$1")
          .replace(/^''$/, "");
        const expected = value === "" && spec?.type === "bool" ? "false" : value;
        if (name !== "otelCollector" && name !== "tracingPort") expect(spec?.default, name).toBe(expected);
      }
    },
  );

  it("starts a controller with every upstream flag it accepts, each given its default", () => {
    for (const controller of ["admission", "background", "cleanup", "reports"] as const) {
      const argv = FLAGS.filter((f) => f.origin === "upstream" && f.controllers.includes(controller)).map(
        (f) => (f.type === "bool" ? `--${f.name}=${f.default}` : `--${f.name}=${f.default}`),
      );
      const parsed = parseFlags(controller, argv, {});
      expect(parsed.ok ? "ok" : parsed.message, controller).toBe("ok");
    }
  });
});
