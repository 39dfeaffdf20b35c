import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { loadPolicy } from "./load.js";
import type { JsonObject, JsonValue } from "./types.js";

interface Outcome {
  errors: string[];
  warnings: string[];
}

/** Errors and warnings of a policy (`kind`, in namespace `team-a` for a Policy) with these rules. */
function load(
  rulesYaml: string,
  spec: JsonObject = {},
  kind = "ClusterPolicy",
  annotations: JsonObject = {},
): Outcome {
  const rules = parse(rulesYaml) as JsonValue;
  const metadata: JsonObject =
    kind === "Policy" ? { name: "p", namespace: "team-a", annotations } : { name: "p", annotations };
  const r = loadPolicy(
    { apiVersion: "kyverno.io/v1", kind, metadata, spec: { ...spec, rules } },
    { file: "p.yaml" },
  );
  const fmt = (e: { path: string; message: string }) => `${e.path}: ${e.message}`;
  return r.ok ? { errors: [], warnings: r.warnings.map(fmt) } : { errors: r.errors.map(fmt), warnings: [] };
}

const errors = (rules: string, spec: JsonObject = {}, kind = "ClusterPolicy") =>
  load(rules, spec, kind).errors;

const NS_MATCH = "match: {any: [{resources: {kinds: [Namespace]}}]}";
const POD_MATCH = "match: {any: [{resources: {kinds: [Pod]}}]}";

/** A generate rule with the given generate block (YAML, indented by the caller). */
function generate(block: string): string {
  return `- name: g\n  ${NS_MATCH}\n  generate:\n${block.replace(/^/gm, "    ")}`;
}

describe("spec settings", () => {
  test("admission and background cannot both be off", () => {
    const rule = `- name: r\n  ${POD_MATCH}\n  validate: {pattern: {metadata: {name: "?*"}}}`;
    expect(errors(rule, { admission: false, background: false })).toEqual([
      "spec.admission: disabling both admission and background processing is not allowed",
    ]);
    expect(errors(rule, { admission: false })).toEqual([]);
    expect(errors(rule, { background: false })).toEqual([]);
  });

  test("a background validate rule cannot match a subresource", () => {
    const rule = (kind: string) =>
      `- name: r\n  match: {any: [{resources: {kinds: [Pod, "${kind}"]}}]}\n  validate: {deny: {}}`;
    for (const kind of ["Pod/exec", "apps/v1/Deployment/scale", "Pod.status", "*/scale"])
      expect(errors(rule(kind)), kind).toEqual([
        `spec.rules[0].match.any[0].resources.kinds[1]: background scan enabled with subresource ${kind}; set spec.background to false`,
      ]);
    expect(errors(rule("Pod/exec"), { background: false })).toEqual([]);
    expect(errors(rule("apps/v1/Deployment"))).toEqual([]);
  });

  test("the deprecated generateExistingOnPolicyUpdate cannot be combined with generateExisting", () => {
    const rule = generate("kind: ConfigMap\napiVersion: v1\nname: c\nnamespace: x\ndata: {}");
    expect(errors(rule, { generateExisting: true, generateExistingOnPolicyUpdate: true })).toEqual([
      "spec.generateExistingOnPolicyUpdate: remove the deprecated field and use generateExisting instead",
    ]);
  });

  test("spec-level existing-resource switches without such rules are warned about", () => {
    const rule = `- name: r\n  ${POD_MATCH}\n  mutate: {patchStrategicMerge: {metadata: {labels: {a: b}}}}`;
    expect(load(rule, { mutateExistingOnPolicyUpdate: true, generateExisting: true }).warnings).toEqual([
      "spec.mutateExistingOnPolicyUpdate: mutateExistingOnPolicyUpdate applies to mutate rules with targets, and no rule has mutate.targets: it has no effect",
      "spec.generateExisting: generateExisting applies to generate rules, and the policy has none: it has no effect",
    ]);
  });
});

describe("generate rules", () => {
  test("the target namespace fits the kind's scope", () => {
    expect(errors(generate("kind: ConfigMap\napiVersion: v1\nname: c\ndata: {}"))).toEqual([
      "spec.rules[0].generate.namespace: target namespace must be set for a namespaced resource",
    ]);
    expect(
      errors(
        generate(
          "kind: ClusterRole\napiVersion: rbac.authorization.k8s.io/v1\nname: c\nnamespace: x\ndata: {}",
        ),
      ),
    ).toEqual([
      "spec.rules[0].generate.namespace: target namespace must not be set for a cluster-wide resource",
    ]);
    // Kinds the table does not know (custom resources) are left to the cluster.
    expect(errors(generate("kind: Widget\napiVersion: example.com/v1\nname: c\ndata: {}"))).toEqual([]);
  });

  test("a namespaced Policy generates and clones in its own namespace only", () => {
    const data = (ns: string) =>
      generate(`kind: ConfigMap\napiVersion: v1\nname: c\nnamespace: ${ns}\ndata: {}`);
    expect(errors(data("team-a"), {}, "Policy")).toEqual([]);
    expect(errors(data("team-b"), {}, "Policy")).toEqual([
      "spec.rules[0].generate.namespace: target resource scope mismatched: a namespaced policy cannot generate resources in other namespaces, expected: team-a, received: team-b",
    ]);
    expect(
      errors(
        generate("kind: ClusterRole\napiVersion: rbac.authorization.k8s.io/v1\nname: c\ndata: {}"),
        {},
        "Policy",
      ),
    ).toEqual([
      "spec.rules[0].generate.namespace: target resource scope mismatched: the target must be a namespaced resource: rbac.authorization.k8s.io/v1/ClusterRole",
    ]);
    expect(
      errors(
        generate(
          "kind: Secret\napiVersion: v1\nname: s\nnamespace: team-a\nclone: {name: s, namespace: default}",
        ),
        {},
        "Policy",
      ),
    ).toEqual([
      "spec.rules[0].generate.clone.namespace: target resource scope mismatched: a namespaced policy cannot clone resource in other namespace, expected: team-a, received: default",
    ]);
    expect(
      errors(
        generate("namespace: team-a\ncloneList: {namespace: other, kinds: [v1/Secret, v1/Namespace]}"),
        {},
        "Policy",
      ),
    ).toEqual([
      "spec.rules[0].generate.cloneList.kinds[1]: the source in cloneList must be a namespaced resource: v1/Namespace",
      "spec.rules[0].generate.cloneList.namespace: a namespaced policy cannot clone resources from other namespace, expected: team-a, received: other",
      "spec.rules[0].generate.cloneList.kinds: mixed scope of target resources is forbidden",
    ]);
  });

  test("a cloneList reads kinds of one scope, from a namespace when namespaced, without wildcard selectors", () => {
    const list = (body: string) =>
      errors(generate(`namespace: "{{request.object.metadata.name}}"\ncloneList: ${body}`));
    expect(list("{kinds: [v1/Secret, v1/ConfigMap]}")).toEqual([
      "spec.rules[0].generate.cloneList.namespace: namespace is required for namespaced target resources",
    ]);
    expect(list("{kinds: [v1/Secret, v1/ConfigMap], namespace: staging}")).toEqual([]);
    expect(list("{kinds: [v1/Secret], namespace: staging, selector: {matchLabels: {app: 'web-*'}}}")).toEqual(
      ["spec.rules[0].generate.cloneList.selector: wildcard characters `*/?` not supported"],
    );
  });
});

describe("mutate-existing rules", () => {
  const existing = (mutate: string) =>
    `- name: m\n  match: {any: [{resources: {kinds: [ConfigMap]}}]}\n  mutate:\n${mutate.replace(/^/gm, "    ")}`;
  const PATCH = "patchStrategicMerge: {metadata: {labels: {a: b}}}";

  test("mutateExistingOnPolicyUpdate needs targets", () => {
    expect(errors(existing(`mutateExistingOnPolicyUpdate: true\n${PATCH}`))).toEqual([
      "spec.rules[0].mutate.targets: targets is required when mutateExistingOnPolicyUpdate is set to true",
    ]);
    expect(
      errors(
        existing(`mutateExistingOnPolicyUpdate: true\ntargets: [{apiVersion: v1, kind: Secret}]\n${PATCH}`),
      ),
    ).toEqual([]);
  });

  test("a target names its API version and kind", () => {
    expect(errors(existing(`targets: [{name: s}]\n${PATCH}`))).toEqual([
      'spec.rules[0].mutate.targets[0]: missing required field "apiVersion" (the background controller looks targets up by API version and kind)',
      'spec.rules[0].mutate.targets[0]: missing required field "kind" (the background controller looks targets up by API version and kind)',
    ]);
  });

  test("a namespaced Policy's targets stay in its namespace", () => {
    expect(
      errors(existing(`targets: [{apiVersion: v1, kind: Secret, namespace: other}]\n${PATCH}`), {}, "Policy"),
    ).toEqual([
      'spec.rules[0].mutate.targets[0].namespace: "other": This field can be ignored or should have value of the namespace where the policy is being created',
    ]);
    expect(
      errors(
        existing(`targets: [{apiVersion: v1, kind: Secret, namespace: team-a}]\n${PATCH}`),
        {},
        "Policy",
      ),
    ).toEqual([]);
  });
});

describe("warnings of an accepted policy", () => {
  test("a JSON patch on Pods", () => {
    const rule = `- name: r\n  ${POD_MATCH}\n  mutate:\n    patchesJson6902: "[{op: add, path: /metadata/labels/a, value: b}]"`;
    expect(load(rule).warnings).toEqual([
      "spec.rules[0].mutate.patchesJson6902: Pods managed by workload controllers should not be directly mutated using policies. Use the autogen feature or write policies that match Pod controllers.",
    ]);
  });

  test("a Pod rule whose autogen leaves controllers out", () => {
    const rule = `- name: r\n  ${POD_MATCH}\n  validate: {pattern: {metadata: {name: "?*"}}}`;
    const annotations = (v: string) => ({ "pod-policies.kyverno.io/autogen-controllers": v });
    expect(load(rule, {}, "ClusterPolicy", annotations("Deployment")).warnings).toEqual([
      expect.stringMatching(
        /^spec\.rules\[0\]\.match: Policies that match Pods apply to all Pods including those/,
      ),
    ]);
    expect(load(rule, {}, "ClusterPolicy", annotations("none")).warnings).toEqual([]);
    expect(
      load(rule, {}, "ClusterPolicy", annotations("Deployment,StatefulSet,DaemonSet,Job,CronJob")).warnings,
    ).toEqual([]);
  });
});

describe("podSecurity exclusions", () => {
  const pss = (exclude: string) =>
    errors(
      `- name: r\n  ${POD_MATCH}\n  validate:\n    podSecurity: {level: baseline, version: latest, exclude: [${exclude}]}`,
    );

  test("images are required for container-level controls and forbidden for pod-level ones", () => {
    expect(pss("{controlName: Capabilities}")).toEqual([
      'spec.rules[0].validate.podSecurity.exclude[0].images: exclude.images must be specified for the container level control "Capabilities"',
    ]);
    expect(pss("{controlName: Host Namespaces, images: [nginx]}")).toEqual([
      'spec.rules[0].validate.podSecurity.exclude[0].images: exclude.images must not be specified for the pod level control "Host Namespaces"',
    ]);
    expect(pss("{controlName: Seccomp}, {controlName: Seccomp, images: ['*']}")).toEqual([]);
    expect(pss("{controlName: Capabilities, images: ['ng inx']}")).toEqual([
      'spec.rules[0].validate.podSecurity.exclude[0].images[0]: invalid image "ng inx": an image name with optional * and ? wildcards',
    ]);
  });

  test("an unknown control name is rejected", () => {
    expect(pss("{controlName: Privileged}")[0]).toMatch(
      /^spec\.rules\[0\]\.validate\.podSecurity\.exclude\[0\]\.controlName: invalid value "Privileged"/,
    );
  });

  test("restrictedField and values go together", () => {
    expect(pss("{controlName: Seccomp, restrictedField: spec.securityContext.seccompProfile.type}")).toEqual([
      "spec.rules[0].validate.podSecurity.exclude[0].values: values is required when restrictedField is set",
    ]);
    expect(pss("{controlName: Seccomp, values: [Unconfined]}")).toEqual([
      "spec.rules[0].validate.podSecurity.exclude[0].restrictedField: restrictedField is required when values are set",
    ]);
  });
});
