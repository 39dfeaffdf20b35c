import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { JsonValue, Policy, Rule } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { evaluatePodSecurity } from "./evaluate.js";
import { podOf } from "./pod-of.js";

// The upstream policy library with `kyverno test` and chainsaw expectations, next to the repository.
const ROOT = fileURLToPath(new URL("../../../../../shared/conformance/kyverno-policies/", import.meta.url));
const available = existsSync(ROOT);

type Json = { [key: string]: JsonValue };

interface PodSecurityCase {
  id: string;
  dir: string;
  rules: Array<{ policy: string; rule: Rule }>;
  results: Array<{ policy: string; rule: string; kind: string; resources: string[]; result: string }>;
  resources: Json[];
}

function docs(file: string): Json[] {
  return parseAllDocuments(readFileSync(file, "utf8"))
    .map((d): unknown => d.toJS())
    .filter((v): v is Json => v !== null && typeof v === "object" && !Array.isArray(v));
}

/** The `kyverno test` folders of the classic sets (not *-cel, *-vpol, *-mpol, *-gpol). */
function testFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || /-(cel|vpol|mpol|gpol)$/.test(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.name === ".kyverno-test") {
      const file = join(path, "kyverno-test.yaml");
      if (existsSync(file)) out.push(file);
    } else if (!entry.name.startsWith(".")) {
      testFiles(path, out);
    }
  }
  return out;
}

/** Every classic test whose policies hold a `validate.podSecurity` rule. */
function podSecurityCases(): PodSecurityCase[] {
  return testFiles(ROOT).flatMap((file): PodSecurityCase[] => {
    const [test] = docs(file);
    const base = dirname(file);
    const paths = (v: JsonValue | undefined): string[] =>
      Array.isArray(v) ? v.flatMap((p) => (typeof p === "string" ? [join(base, p)] : [])) : [];
    const policies = paths(test?.policies).flatMap(docs) as unknown as Policy[];
    const rules = policies.flatMap((p) =>
      (p.spec?.rules ?? [])
        .filter((r) => r.validate?.podSecurity)
        .map((rule) => ({ policy: p.metadata.name, rule })),
    );
    if (rules.length === 0) return [];
    const results = Array.isArray(test?.results)
      ? (test.results as unknown as PodSecurityCase["results"])
      : [];
    return [
      {
        id: relative(ROOT, dirname(base)),
        dir: dirname(base),
        rules,
        results,
        resources: paths(test?.resources).flatMap(docs),
      },
    ];
  });
}

/** Whether the rule's podSecurity allows the resource (a Pod or a pod controller). */
function allows(rule: Rule, resource: Json): boolean {
  const pod = podOf(resource);
  if (pod === undefined) throw new Error(`not a pod or controller: ${String(resource.kind)}`);
  const ps = rule.validate?.podSecurity ?? {};
  const r = evaluatePodSecurity({ level: ps.level ?? "", version: ps.version, exclude: ps.exclude, ...pod });
  if (!r.ok) throw new Error(r.error);
  return r.allowed;
}

const nameOf = (resource: Json): string => {
  const meta = resource.metadata;
  return meta !== null && typeof meta === "object" && !Array.isArray(meta) ? String(meta.name) : "";
};

describe.skipIf(!available)("podSecurity on the upstream policy library", () => {
  const cases = available ? podSecurityCases() : [];

  it("finds the classic podSecurity tests", () => {
    expect(cases.map((c) => c.id).sort()).toEqual([
      "pod-security/subrule/restricted/restricted-exclude-capabilities",
      "pod-security/subrule/restricted/restricted-exclude-seccomp",
      "pod-security/subrule/restricted/restricted-latest",
    ]);
  });

  describe.each(cases)("$id", (tc) => {
    it("gives every `kyverno test` result line on Pods", () => {
      const mismatches: string[] = [];
      let checked = 0;
      for (const line of tc.results.filter((r) => r.kind === "Pod")) {
        const rule = tc.rules.find((r) => r.policy === line.policy && r.rule.name === line.rule)?.rule;
        if (rule === undefined) throw new Error(`no rule ${line.policy}/${line.rule}`);
        for (const name of line.resources) {
          const resource = tc.resources.find((r) => r.kind === "Pod" && nameOf(r) === name);
          if (resource === undefined) throw new Error(`no Pod ${name}`);
          const got = allows(rule, resource) ? "pass" : "fail";
          checked++;
          if (got !== line.result) mismatches.push(`${name}: expected ${line.result}, got ${got}`);
        }
      }
      expect(mismatches).toEqual([]);
      expect(checked).toBeGreaterThan(0);
    });

    it("admits the chainsaw good Pods and controllers and rejects the bad ones", () => {
      const [only] = tc.rules;
      if (only === undefined || tc.rules.length !== 1) throw new Error("expected one podSecurity rule");
      const mismatches: string[] = [];
      let checked = 0;
      for (const file of ["pod-good", "pod-bad", "podcontroller-good", "podcontroller-bad"]) {
        const path = join(tc.dir, ".chainsaw-test", `${file}.yaml`);
        if (!existsSync(path)) continue;
        for (const resource of docs(path)) {
          const expected = file.endsWith("good");
          checked++;
          if (allows(only.rule, resource) !== expected) {
            mismatches.push(
              `${file} ${String(resource.kind)}/${nameOf(resource)}: expected allowed=${expected}`,
            );
          }
        }
      }
      expect(mismatches).toEqual([]);
      expect(checked).toBeGreaterThan(20);
    });
  });
});
