import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { MatchResources, Policy, Rule } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { parseKindSelector } from "../match/index.js";
import { matchWildcard } from "../wildcard/wildcard.js";
import { autogenRules } from "./autogen.js";
import { autogenControllers } from "./controllers.js";

// The upstream policy library with `kyverno test` expectations, next to the repository.
const ROOT = fileURLToPath(new URL("../../../../../shared/conformance/kyverno-policies/", import.meta.url));
const available = existsSync(ROOT);

function loadPolicies(file: string): Policy[] {
  return parseAllDocuments(readFileSync(file, "utf8"))
    .map((d): unknown => d.toJS())
    .filter(isPolicy);
}

function isPolicy(v: unknown): v is Policy {
  if (v === null || typeof v !== "object" || !("apiVersion" in v) || !("kind" in v)) return false;
  return (
    typeof v.apiVersion === "string" &&
    v.apiVersion.startsWith("kyverno.io/") &&
    (v.kind === "ClusterPolicy" || v.kind === "Policy")
  );
}

const policy = (path: string): Policy => {
  const [p] = loadPolicies(join(ROOT, path));
  if (!p) throw new Error(`no policy in ${path}`);
  return p;
};

const ruleNamed = (rules: Rule[], name: string): Rule => {
  const r = rules.find((x) => x.name === name);
  if (!r) throw new Error(`no rule ${name} in ${rules.map((x) => x.name).join(", ")}`);
  return r;
};

const kindsOf = (m: MatchResources): string[] =>
  [m, ...(m.any ?? []), ...(m.all ?? [])].flatMap((f) => f.resources?.kinds ?? []);

/** True when `name` is a rule of the policy or the autogen name of one. */
const namesRule = (p: Policy, name: string): boolean =>
  p.spec.rules.some((r) => [r.name, `autogen-${r.name}`, `autogen-cronjob-${r.name}`].includes(name));

interface TestResult {
  policy: string;
  rule: string;
  kind: string;
}

interface TestCase {
  id: string;
  policies: Policy[];
  results: TestResult[];
}

/** Every `kyverno test` file with its kyverno.io policies and its result lines. */
function testCases(): TestCase[] {
  const out: TestCase[] = [];
  for (const set of readdirSync(ROOT, { withFileTypes: true })) {
    if (!set.isDirectory()) continue;
    for (const dir of readdirSync(join(ROOT, set.name))) {
      const file = join(ROOT, set.name, dir, ".kyverno-test", "kyverno-test.yaml");
      if (!existsSync(file)) continue;
      const doc: unknown = parseAllDocuments(readFileSync(file, "utf8"))[0]?.toJS();
      if (doc === null || typeof doc !== "object") continue;
      const paths = "policies" in doc && Array.isArray(doc.policies) ? doc.policies : [];
      const results = "results" in doc && Array.isArray(doc.results) ? doc.results : [];
      out.push({
        id: `${set.name}/${dir}`,
        policies: paths.flatMap((p) => (typeof p === "string" ? loadPolicies(join(dirname(file), p)) : [])),
        results: results.filter(
          (r): r is TestResult =>
            typeof r?.policy === "string" && typeof r?.rule === "string" && typeof r?.kind === "string",
        ),
      });
    }
  }
  return out;
}

describe.skipIf(!available)("autogen on the upstream policy library", () => {
  it("produces a rule selecting the kind of every expected result", () => {
    const missing: string[] = [];
    let checked = 0;
    for (const tc of testCases()) {
      for (const res of tc.results) {
        const p = tc.policies.find((x) => x.metadata.name === res.policy);
        // Skip lines naming policies or rules that do not exist (upstream typos): they test the CLI.
        if (p === undefined || !namesRule(p, res.rule)) continue;
        // `kyverno test` accepts a response from X, autogen-X or autogen-cronjob-X for a line naming X.
        const accepted = new Set([res.rule, `autogen-${res.rule}`, `autogen-cronjob-${res.rule}`]);
        const ok = autogenRules(p).some(
          (r) =>
            accepted.has(r.name) &&
            kindsOf(r.match).some((k) => {
              const sel = parseKindSelector(k);
              return sel !== undefined && matchWildcard(sel.kind, res.kind);
            }),
        );
        checked++;
        if (!ok) missing.push(`${tc.id}: ${res.policy}/${res.rule} on ${res.kind}`);
      }
    }
    expect(missing).toEqual([]);
    expect(checked).toBeGreaterThan(400);
  });

  it("names the rules that tests reference explicitly", () => {
    const mem = autogenRules(policy("other/memory-requests-equal-limits/memory-requests-equal-limits.yaml"));
    expect(mem.map((r) => r.name)).toEqual([
      "memory-requests-equal-limits",
      "autogen-memory-requests-equal-limits",
      "autogen-cronjob-memory-requests-equal-limits",
    ]);
    const key = (r: Rule) => {
      const c = r.validate?.deny?.conditions;
      return c && !Array.isArray(c) ? c.any?.[0]?.key : undefined;
    };
    expect(key(ruleNamed(mem, "autogen-memory-requests-equal-limits"))).toBe(
      "{{ request.object.spec.template.spec.containers[?resources.requests.memory!=resources.limits.memory] | length(@) }}",
    );
    expect(key(ruleNamed(mem, "autogen-cronjob-memory-requests-equal-limits"))).toBe(
      "{{ request.object.spec.jobTemplate.spec.template.spec.containers[?resources.requests.memory!=resources.limits.memory] | length(@) }}",
    );

    const velero = autogenRules(policy("velero/backup-all-volumes/backup-all-volumes.yaml"));
    const pv = ruleNamed(velero, "autogen-backup-velero-pv");
    expect(pv.match.any?.[0]?.resources?.namespaceSelector).toEqual({
      matchLabels: { "velero-backup-pvc": "true" },
    });
    expect(pv.context?.[0]?.variable?.jmesPath).toBe(
      "join(',',request.object.spec.template.spec.volumes[?persistentVolumeClaim].name)",
    );
    expect(pv.mutate?.patchStrategicMerge).toEqual({
      spec: {
        template: { metadata: { annotations: { "backup.velero.io/backup-volumes": "{{ volumes }}" } } },
      },
    });
  });

  it("wraps anyPattern twice for CronJob", () => {
    const rules = autogenRules(
      policy("pod-security/restricted/restrict-seccomp-strict/restrict-seccomp-strict.yaml"),
    );
    const original = ruleNamed(rules, "check-seccomp-strict").validate?.anyPattern ?? [];
    expect(original).toHaveLength(2);
    expect(ruleNamed(rules, "autogen-check-seccomp-strict").validate?.anyPattern).toEqual(
      original.map((p) => ({ spec: { template: p } })),
    );
    expect(ruleNamed(rules, "autogen-cronjob-check-seccomp-strict").validate?.anyPattern).toEqual(
      original.map((p) => ({ spec: { jobTemplate: { spec: { template: p } } } })),
    );
  });

  it("follows the controllers annotation", () => {
    const probes = policy("best-practices/require-probes/require-probes.yaml");
    expect(autogenControllers(probes)).toEqual(["DaemonSet", "Deployment", "StatefulSet"]);
    const rules = autogenRules(probes);
    expect(rules.map((r) => r.name)).toEqual(["validate-probes", "autogen-validate-probes"]);
    const generated = ruleNamed(rules, "autogen-validate-probes");
    expect(kindsOf(generated.match)).toEqual(["DaemonSet", "Deployment", "StatefulSet"]);
    expect(generated.validate?.foreach?.[0]?.list).toBe("request.object.spec.template.spec.containers[]");

    const none = policy("best-practices/disallow-default-namespace/disallow-default-namespace.yaml");
    expect(autogenControllers(none)).toEqual([]);
    expect(autogenRules(none).map((r) => r.name)).toEqual(none.spec.rules.map((r) => r.name));
  });

  it("leaves policies alone when a rule mixes Pod with other kinds or generates", () => {
    for (const path of [
      "other/add-labels/add-labels.yaml",
      "best-practices/add-network-policy/add-network-policy.yaml",
    ]) {
      const p = policy(path);
      expect(autogenControllers(p)).toEqual([]);
      expect(autogenRules(p)).toEqual(p.spec.rules);
    }
  });

  it("wraps strategic merge patches of mutate foreach", () => {
    const rules = autogenRules(policy("other/prepend-image-registry/prepend-image-registry.yaml"));
    const foreach = ruleNamed(rules, "autogen-cronjob-prepend-registry-containers").mutate?.foreach;
    expect(foreach).toMatchObject([
      {
        list: "request.object.spec.jobTemplate.spec.template.spec.containers",
        patchStrategicMerge: {
          spec: {
            jobTemplate: { spec: { template: { spec: { containers: [{ name: "{{ element.name }}" }] } } } },
          },
        },
      },
    ]);
  });

  it("rewrites CEL expressions of validate.cel rules", () => {
    const rules = autogenRules(policy("other-cel/require-image-checksum/require-image-checksum.yaml"));
    const expression = (name: string): unknown => {
      const cel = ruleNamed(rules, name).validate?.cel;
      const list = cel?.expressions;
      const first = Array.isArray(list) ? list[0] : undefined;
      return first !== null && typeof first === "object" && !Array.isArray(first)
        ? first.expression
        : undefined;
    };
    expect(expression("autogen-require-image-checksum")).toBe(
      "object.spec.template.spec.containers.all(container, container.image.contains('@'))",
    );
    expect(expression("autogen-cronjob-require-image-checksum")).toBe(
      "object.spec.jobTemplate.spec.template.spec.containers.all(container, container.image.contains('@'))",
    );
  });
});
