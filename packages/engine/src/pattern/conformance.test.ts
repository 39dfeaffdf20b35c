/**
 * A pattern-only view of the shared conformance suite: every classic `validate.pattern` /
 * `validate.anyPattern` rule without variables or context is checked against the expected result
 * of each resource. Preconditions on `request.operation` are taken as satisfied; Pod rules are
 * wrapped for controllers the way autogen does. The full suite runs through the CLI.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { JsonValue } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { parseAllDocuments, parse as parseYaml } from "yaml";
import { validatePattern } from "./validate-pattern.js";

const ROOT = resolve(
  dirname(fileURLToPath(import.meta.url)),
  "../../../../../shared/conformance/kyverno-policies",
);
const CONTROLLERS = ["Deployment", "DaemonSet", "StatefulSet", "Job", "ReplicaSet", "ReplicationController"];

type Doc = { [key: string]: JsonValue };
interface Check {
  name: string;
  resource: JsonValue;
  patterns: JsonValue[];
  any: boolean;
  expected: string;
}

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (!e.isDirectory()) return [];
    if (e.name === ".kyverno-test")
      return existsSync(join(p, "kyverno-test.yaml")) ? [join(p, "kyverno-test.yaml")] : [];
    return e.name.startsWith(".") ? [] : testFiles(p);
  });
}

const docs = (file: string): Doc[] =>
  parseAllDocuments(readFileSync(file, "utf8"))
    .map((d) => d.toJSON() as Doc | null)
    .flatMap((d) => (d === null ? [] : d.kind === "List" ? ((d.items ?? []) as Doc[]) : [d]));

function wrap(pattern: JsonValue, kind: unknown): JsonValue {
  if (kind === "CronJob") return { spec: { jobTemplate: { spec: { template: pattern } } } };
  return CONTROLLERS.includes(String(kind)) ? { spec: { template: pattern } } : pattern;
}

function collect(): Check[] {
  const sets = readdirSync(ROOT, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !/-(cel|vpol|mpol|gpol)$/.test(d.name))
    .map((d) => d.name);
  const checks: Check[] = [];
  for (const file of sets.flatMap((s) => testFiles(join(ROOT, s)))) {
    const test = parseYaml(readFileSync(file, "utf8")) as {
      policies?: string[];
      resources?: string[];
      results?: Doc[];
    };
    const policies = (test.policies ?? []).flatMap((p) => docs(resolve(dirname(file), p)));
    const resources = (test.resources ?? []).flatMap((p) => docs(resolve(dirname(file), p)));
    for (const result of test.results ?? []) {
      const policy = policies.find((p) => (p.metadata as Doc | undefined)?.name === result.policy);
      const rules = ((policy?.spec as Doc | undefined)?.rules ?? []) as Doc[];
      const rule = rules.find((r) => r.name === String(result.rule).replace(/^autogen-(cronjob-)?/, ""));
      const validate = rule?.validate as Doc | undefined;
      if (rule === undefined || validate === undefined) continue;
      const patterns =
        validate.pattern !== undefined
          ? [validate.pattern]
          : (validate.anyPattern as JsonValue[] | undefined);
      if (patterns === undefined || JSON.stringify(validate).includes("{{") || rule.context !== undefined)
        continue;
      if (
        rule.preconditions !== undefined &&
        !JSON.stringify(rule.preconditions).includes("request.operation")
      )
        continue;
      const kinds = JSON.stringify(rule.match ?? {});
      for (const name of (result.resources ?? [result.resource]) as string[]) {
        const bare = String(name).split("/").pop();
        const resource = resources.find(
          (r) => (r.metadata as Doc | undefined)?.name === bare && r.kind === result.kind,
        );
        if (resource === undefined) continue;
        const kind = kinds.includes(`"${String(resource.kind)}"`) ? undefined : resource.kind;
        checks.push({
          name: `${file.slice(ROOT.length + 1, -".kyverno-test/kyverno-test.yaml".length - 1)} ${String(result.rule)} ${bare}`,
          resource,
          patterns: patterns.map((p) => wrap(p, kind)),
          any: validate.pattern === undefined,
          expected: String(result.result).trim(),
        });
      }
    }
  }
  return checks;
}

function outcome(check: Check): string {
  const results = check.patterns.map((p) => validatePattern(check.resource, p).status);
  if (!check.any) return results[0] ?? "pass";
  if (results.includes("pass")) return "pass";
  return results.every((s) => s === "skip") ? "skip" : "fail";
}

describe.skipIf(!existsSync(ROOT))("conformance suite, pattern rules", () => {
  const checks = existsSync(ROOT) ? collect() : [];

  it("covers a meaningful share of the suite", () => {
    expect(checks.length).toBeGreaterThan(500);
  });

  it.each(checks.map((c) => [c.name, c] as const))("%s", (_name, check) => {
    expect(outcome(check)).toBe(check.expected);
  });
});
