/**
 * In-cluster behaviours that differ from `kyverno test` (issue #18), end to end: the admission
 * controller (cluster mode, ephemeral reports) and the reports controller in process against the
 * sandbox, driven by kubectl. Context entries load lazily; the mutating webhook's results reach the
 * PolicyReports; Pod Security messages name the failing field at admission and in background scans;
 * `kubernetes.io/metadata.name` selects namespaces in mutate rules; `operations: [UPDATE]` leaves
 * CREATE alone; ConfigMap lookups work in background scans.
 */
import { fileURLToPath } from "node:url";
import type { KubeObject, PolicyReportResult } from "@kyverno-ts/api";
import { createEngine } from "@kyverno-ts/engine";
import type { KubeClient } from "@kyverno-ts/kube";
import { kubectlAvailable } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../clock.js";
import { createBoundedResultQueue } from "../controllers/admission/results.js";
import {
  type BackgroundController,
  createBackgroundController,
} from "../controllers/background/background-controller.js";
import {
  createEphemeralReportPublisher,
  type EphemeralReportPublisher,
} from "../reports/ephemeral-reports.js";
import { policyReady, until } from "../testing/cluster.js";
import { type E2eCluster, startE2eCluster } from "../testing/e2e-cluster.js";
import { recordingLogger } from "../testing/fixtures.js";

const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn("skipping the in-cluster fidelity e2e suite: kubectl is not installed");

const REPORT_CRDS = ["wgpolicyk8s.io_policyreports.yaml", "wgpolicyk8s.io_clusterpolicyreports.yaml"].map(
  (f) =>
    fileURLToPath(new URL(`../../../../../shared/reference/kyverno-crds/policyreport/${f}`, import.meta.url)),
);

const UR_CRD = fileURLToPath(
  new URL(
    "../../../../../shared/reference/kyverno-crds/kyverno/kyverno.io_updaterequests.yaml",
    import.meta.url,
  ),
);

/** What the background controller may do (the policy validation webhook checks generate rules against it). */
const BACKGROUND_RBAC = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: kyverno:background-controller}
rules:
- apiGroups: [""]
  resources: [configmaps, secrets]
  verbs: [get, list, watch, create, update, patch, delete]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: kyverno:background-controller}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: kyverno:background-controller}
subjects:
- {kind: ServiceAccount, name: kyverno-background-controller, namespace: kyverno}
`;

const BACKGROUND_POLICIES = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: copy-settings}
spec:
  rules:
  - name: copy
    match: {any: [{resources: {kinds: [ConfigMap], namespaces: [gen], names: ["trigger-*"]}}]}
    generate:
      synchronize: false
      apiVersion: v1
      kind: ConfigMap
      name: "copy-{{request.object.metadata.name}}"
      namespace: gen
      data:
        data: {from: "{{request.object.metadata.name}}"}
  - name: label-target
    match: {any: [{resources: {kinds: [ConfigMap], namespaces: [gen], names: ["trigger-*"]}}]}
    mutate:
      targets:
      - {apiVersion: v1, kind: Secret, namespace: gen, name: target}
      patchStrategicMerge:
        metadata:
          labels:
            touched-by: "{{request.object.metadata.name}}"
`;

const POLICIES = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: lazy-remote}
spec:
  validationFailureAction: Enforce
  background: false
  rules:
  - name: checked-only
    match: {any: [{resources: {kinds: [ConfigMap], namespaces: [lazy]}}]}
    context:
    - name: remote
      apiCall: {urlPath: /api/v1/namespaces/lazy/configmaps/does-not-exist}
    preconditions:
      all:
      - {key: "{{ request.object.metadata.labels.check || '' }}", operator: Equals, value: "yes"}
    validate:
      message: the remote ConfigMap says no
      deny:
        conditions:
          any:
          - {key: "{{ remote.data.allowed }}", operator: NotEquals, value: "true"}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: owner-label}
spec:
  validationFailureAction: Audit
  background: false
  rules:
  - name: add-owner
    match:
      any:
      - resources:
          kinds: [ConfigMap]
          namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: mut}}
    mutate:
      patchStrategicMerge: {metadata: {labels: {owner: platform}}}
  - name: require-team
    match: {any: [{resources: {kinds: [ConfigMap], namespaces: [mut]}}]}
    validate:
      message: the label team is required
      pattern: {metadata: {labels: {team: "?*"}}}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: psa-restricted}
spec:
  validationFailureAction: Enforce
  background: true
  rules:
  - name: restricted
    match: {any: [{resources: {kinds: [Pod], namespaces: [pss]}}]}
    validate:
      podSecurity: {level: restricted, version: latest}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: psa-audit}
spec:
  validationFailureAction: Audit
  background: true
  rules:
  - name: restricted
    match: {any: [{resources: {kinds: [Pod], namespaces: [pss-audit]}}]}
    validate:
      podSecurity: {level: restricted, version: latest}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: frozen-on-update}
spec:
  validationFailureAction: Enforce
  background: false
  rules:
  - name: no-updates
    match: {any: [{resources: {kinds: [ConfigMap], namespaces: [ops], operations: [UPDATE]}}]}
    validate:
      message: ConfigMaps in ops cannot be frozen by an update
      deny:
        conditions:
          any:
          - {key: "{{ request.object.metadata.labels.frozen || '' }}", operator: Equals, value: "true"}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: size-from-configmap}
spec:
  validationFailureAction: Audit
  background: true
  rules:
  - name: max-keys
    match: {any: [{resources: {kinds: [ConfigMap], namespaces: [scan]}}]}
    context:
    - name: limits
      configMap: {name: limits, namespace: kyverno}
    # Background scans evaluate existing resources as CREATE requests, as upstream's scanner.
    preconditions:
      all:
      - {key: "{{ request.operation }}", operator: Equals, value: CREATE}
    validate:
      message: "at most {{ limits.data.max }} keys"
      deny:
        conditions:
          any:
          - {key: "{{ length(request.object.data || \`{}\`) }}", operator: GreaterThan, value: "{{ limits.data.max }}"}
`;

const MORE_POLICIES = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: lenient-on-errors}
spec:
  validationFailureAction: Enforce
  failurePolicy: Ignore
  emitWarning: true
  background: false
  rules:
  - name: strict-level
    match: {any: [{resources: {kinds: [ConfigMap], namespaces: [fp]}}]}
    validate:
      message: strict ConfigMaps need level high
      pattern: {data: {(mode): strict, level: high}}
  - name: broken
    match: {any: [{resources: {kinds: [ConfigMap], namespaces: [fp]}}]}
    preconditions:
      all:
      - {key: "{{ request.object.data.boom || '' }}", operator: Equals, value: "yes"}
    validate:
      message: never reached
      deny:
        conditions:
          any:
          - {key: "{{ divide(\`1\`, \`0\`) }}", operator: Equals, value: 1}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: reindex}
spec:
  background: false
  rules:
  - name: r
    match: {any: [{resources: {kinds: [Pod], namespaces: [idx]}}]}
    mutate:
      foreach:
      - list: request.object.spec.containers
        preconditions: {all: [{key: "{{element.name}}", operator: Equals, value: a}]}
        patchesJson6902: |-
          - op: remove
            path: /spec/containers/{{elementIndex}}
      - list: request.object.spec.containers
        patchesJson6902: |-
          - op: add
            path: /spec/containers/{{elementIndex}}/env
            value: [{name: IDX, value: "{{elementIndex}}"}]
`;

const PSS_POD = (namespace: string) => `apiVersion: v1
kind: Pod
metadata: {name: app, namespace: ${namespace}}
spec:
  containers:
  - {name: app, image: nginx:1.27}
`;

const PSS_FIELDS = [
  "(Forbidden reason: allowPrivilegeEscalation != false, field error list: [spec.containers[0].securityContext.allowPrivilegeEscalation: Required value])",
  "(Forbidden reason: unrestricted capabilities, field error list: [spec.containers[0].securityContext.capabilities.drop: Required value])",
  "(Forbidden reason: runAsNonRoot != true, field error list: [spec.containers[0].securityContext.runAsNonRoot: Required value])",
  "(Forbidden reason: seccompProfile, field error list: [spec.containers[0].securityContext.seccompProfile.type: Required value])",
].join("");
const PSS_MESSAGE = `Validation rule 'restricted' failed. It violates PodSecurity "restricted:latest": ${PSS_FIELDS}`;

describe.skipIf(!hasKubectl)("in-cluster fidelity, through kubectl", { timeout: 60_000 }, () => {
  let cluster: E2eCluster;
  let client: KubeClient;
  let kubectl: E2eCluster["kubectl"];
  let background: BackgroundController;
  let backgroundPublisher: EphemeralReportPublisher;
  const backgroundResults = createBoundedResultQueue();

  /** The results of the report of one resource, once `ready` holds for them. */
  const reportOf = async (
    namespace: string,
    kind: string,
    name: string,
    ready: (results: PolicyReportResult[]) => boolean,
  ): Promise<PolicyReportResult[]> => {
    const got = await client.get<KubeObject>({ apiVersion: "v1", kind, namespace, name });
    if (!got.ok) throw new Error(got.message);
    const uid = String(got.value.metadata?.uid ?? "");
    let results: PolicyReportResult[] = [];
    await until(
      async () => {
        const r = await client.get<KubeObject & { results?: PolicyReportResult[] }>({
          apiVersion: "wgpolicyk8s.io/v1alpha2",
          kind: "PolicyReport",
          namespace,
          name: uid,
        });
        results = r.ok ? (r.value.results ?? []) : [];
        return ready(results);
      },
      15_000,
      `the report of ${kind} ${namespace}/${name}`,
    ).catch((e: unknown) => {
      // Say what the report held instead, so an intermittent failure can be read from CI's log.
      const held = results.map((r) => [r.policy, r.rule, r.result, r.properties?.process]);
      throw new Error(`${e instanceof Error ? e.message : String(e)}; it held ${JSON.stringify(held)}`);
    });
    return results;
  };

  beforeAll(async () => {
    cluster = await startE2eCluster({
      crds: [...REPORT_CRDS, UR_CRD],
      namespaces: ["kyverno", "lazy", "mut", "pss", "pss-audit", "ops", "scan", "gen", "fp", "idx"],
      objects: [
        {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "limits", namespace: "kyverno" },
          data: { max: "2" },
        },
      ],
      // The admission and reports controllers run in this process (the background controller below).
      inProcess: { admission: { publishEphemeralReports: true }, reports: true },
    });
    ({ client, kubectl } = cluster);
    await client.create({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "target", namespace: "gen" },
      data: { a: "MQ==" },
    } as KubeObject);
    backgroundPublisher = createEphemeralReportPublisher({ client, source: backgroundResults });
    backgroundPublisher.start();
    background = createBackgroundController({
      client,
      engine: createEngine(),
      namespace: "kyverno",
      workers: 2,
      exceptionNamespaces: [],
      leaderElection: false,
      user: "system:serviceaccount:kyverno:kyverno-background-controller",
      clock: systemClock(),
      logger: recordingLogger(),
      results: backgroundResults,
    });
    await background.start();
    expect((await kubectl(["apply", "-f", "-"], BACKGROUND_RBAC)).code).toBe(0);
    const generating = await kubectl(["apply", "-f", "-"], BACKGROUND_POLICIES);
    expect(generating.stderr).toBe("");
    const applied = await kubectl(["apply", "-f", "-"], `${POLICIES}---\n${MORE_POLICIES}`);
    expect(applied.stderr).toBe("");
    for (const name of [
      "lazy-remote",
      "owner-label",
      "psa-restricted",
      "psa-audit",
      "frozen-on-update",
      "size-from-configmap",
      "copy-settings",
      "lenient-on-errors",
      "reindex",
    ])
      await policyReady(client, name);
  }, 90_000);
  afterAll(async () => {
    await background?.stop();
    await backgroundPublisher?.stop();
    await cluster?.stop();
  });

  it("loads context entries lazily: a failing apiCall behind unmet preconditions does not deny", async () => {
    const plain = await kubectl(["create", "configmap", "plain", "-n", "lazy", "--from-literal=a=1"]);
    expect(plain.stderr).toBe("");
    expect(plain.code).toBe(0);
    // Preconditions met: the rule reads the entry, whose apiCall fails; Enforce blocks on the error.
    const checked = await kubectl(
      ["apply", "-f", "-"],
      `apiVersion: v1
kind: ConfigMap
metadata: {name: checked, namespace: lazy, labels: {check: "yes"}}
data: {a: "1"}
`,
    );
    expect(checked.code).toBe(1);
    expect(checked.stderr).toContain("lazy-remote");
    expect(checked.stderr).toContain("checked-only");
    expect(checked.stderr).toContain("remote.data.allowed");
  });

  it("reports the mutating webhook's results beside the validate results of the same policy", async () => {
    const created = await kubectl(["create", "configmap", "settings", "-n", "mut", "--from-literal=a=1"]);
    expect(created.stderr).toBe("");
    const labels = await kubectl([
      "get",
      "configmap",
      "settings",
      "-n",
      "mut",
      "-o",
      "jsonpath={.metadata.labels}",
    ]);
    expect(labels.stdout).toBe('{"owner":"platform"}');
    const results = await reportOf("mut", "ConfigMap", "settings", (rs) => rs.length === 2);
    const byRule = Object.fromEntries(results.map((r) => [r.rule, r]));
    expect(byRule["add-owner"]).toMatchObject({
      policy: "owner-label",
      result: "pass",
      message: "mutated ConfigMap/settings in namespace mut",
      source: "kyverno",
      properties: { process: "admission review" },
    });
    expect(byRule["require-team"]).toMatchObject({
      policy: "owner-label",
      result: "fail",
      message:
        "validation error: the label team is required. rule require-team failed at path /metadata/labels/team/",
    });
    // An UPDATE answers again through both webhooks; the report keeps one row per rule.
    const labelled = await kubectl(["label", "configmap", "settings", "-n", "mut", "team=a"]);
    expect(labelled.stderr).toBe("");
    const updated = await reportOf(
      "mut",
      "ConfigMap",
      "settings",
      (rs) => rs.find((r) => r.rule === "require-team")?.result === "pass",
    );
    expect(updated.map((r) => [r.rule, r.result]).sort()).toEqual([
      ["add-owner", "skip"],
      ["require-team", "pass"],
    ]);
  });

  it("denies a Pod under Pod Security with the failing fields, and reports the same message in a background scan", async () => {
    const denied = await kubectl(["apply", "-f", "-"], PSS_POD("pss"));
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain("resource Pod/pss/app was blocked due to the following policies");
    expect(denied.stderr).toContain("spec.containers[0].securityContext.runAsNonRoot: Required value");
    expect(denied.stderr).toContain(PSS_FIELDS);

    const audited = await kubectl(["apply", "-f", "-"], PSS_POD("pss-audit"));
    expect(audited.code).toBe(0);
    const results = await reportOf("pss-audit", "Pod", "app", (rs) =>
      rs.some((r) => r.properties?.process === "background scan"),
    );
    expect(results.filter((r) => r.policy === "psa-audit")).toEqual([
      expect.objectContaining({ rule: "restricted", result: "fail", message: PSS_MESSAGE }),
    ]);
    // Upstream's Pod Security properties: the level, the version and the failed checks' IDs.
    expect(results.find((r) => r.policy === "psa-audit")?.properties).toEqual({
      process: "background scan",
      standard: "restricted",
      version: "latest",
      controls: "allowPrivilegeEscalation,capabilities_restricted,runAsNonRoot,seccompProfile_restricted",
      // Each failed check with the images of the containers it names and its reason (upstream's
      // controlsJSON, a JSON string as every property).
      controlsJSON: JSON.stringify(
        [
          ["allowPrivilegeEscalation", "allowPrivilegeEscalation != false"],
          ["capabilities_restricted", "unrestricted capabilities"],
          ["runAsNonRoot", "runAsNonRoot != true"],
          ["seccompProfile_restricted", "seccompProfile"],
        ].map(([ID, Name]) => ({ ID, Images: ["docker.io/nginx:1.27"], Name })),
      ),
    });
  });

  it("matches operations: [UPDATE] only on updates", async () => {
    // A CREATE is not matched, even with the label the rule denies.
    const created = await kubectl(
      ["apply", "-f", "-"],
      `apiVersion: v1
kind: ConfigMap
metadata: {name: born-frozen, namespace: ops, labels: {frozen: "true"}}
`,
    );
    expect(created.stderr).toBe("");
    const plain = await kubectl(["create", "configmap", "plain", "-n", "ops", "--from-literal=a=1"]);
    expect(plain.code).toBe(0);
    const changed = await kubectl(["label", "configmap", "plain", "-n", "ops", "frozen=true"]);
    expect(changed.code).toBe(1);
    expect(changed.stderr).toContain("ConfigMaps in ops cannot be frozen by an update");
  });

  it("reads ConfigMap context entries in background scans: pass and fail, not error", async () => {
    for (const [name, keys] of [
      ["small", ["--from-literal=a=1"]],
      ["large", ["--from-literal=a=1", "--from-literal=b=2", "--from-literal=c=3"]],
    ] as const) {
      const created = await kubectl(["create", "configmap", name, "-n", "scan", ...keys]);
      expect(created.code).toBe(0);
    }
    const isScanned = (rs: PolicyReportResult[]) =>
      rs.some((r) => r.policy === "size-from-configmap" && r.properties?.process === "background scan");
    const small = await reportOf("scan", "ConfigMap", "small", isScanned);
    const large = await reportOf("scan", "ConfigMap", "large", isScanned);
    const scanned = (rs: PolicyReportResult[]) =>
      rs.filter((r) => r.policy === "size-from-configmap" && r.properties?.process === "background scan");
    expect(scanned(small).map((r) => r.result)).toEqual(["pass"]);
    expect(scanned(large).map((r) => [r.result, r.message])).toEqual([["fail", "at most 2 keys"]]);
  });

  it("reports the background controller's generate and mutate-existing results on the trigger", async () => {
    const created = await kubectl(["create", "configmap", "trigger-a", "-n", "gen", "--from-literal=a=1"]);
    expect(created.stderr).toBe("");
    const results = await reportOf("gen", "ConfigMap", "trigger-a", (rs) => rs.length === 2);
    expect(results.map((r) => [r.policy, r.rule, r.result, r.properties?.process]).sort()).toEqual([
      // The background controller's work answers an admission: upstream reports it as one (the
      // exceptions guide's GeneratingPolicy report says `process: admission review`).
      ["copy-settings", "copy", "pass", "admission review"],
      ["copy-settings", "label-target", "pass", "admission review"],
    ]);
    // The generated object is named as upstream's `generated-resources` property names it.
    expect(results.find((r) => r.rule === "copy")?.properties?.["generated-resources"]).toBe(
      "/v1, Kind=ConfigMap Name=copy-trigger-a Namespace=gen",
    );
    const copy = await client.get<KubeObject>({
      apiVersion: "v1",
      kind: "ConfigMap",
      namespace: "gen",
      name: "copy-trigger-a",
    });
    expect(copy.ok).toBe(true);
  });

  it("under failurePolicy Ignore, blocks an Enforce rule's anchor failure but admits its evaluation error", async () => {
    const cm = (name: string, data: string) => `apiVersion: v1
kind: ConfigMap
metadata: {name: ${name}, namespace: fp}
data: ${data}
`;
    const failing = await kubectl(["apply", "-f", "-"], cm("low", "{mode: strict, level: low}"));
    expect(failing.code).toBe(1);
    expect(failing.stderr).toContain("strict ConfigMaps need level high");
    const relaxed = await kubectl(["apply", "-f", "-"], cm("relaxed", "{mode: relaxed, level: low}"));
    expect(relaxed.code).toBe(0);
    const erroring = await kubectl(["apply", "-f", "-"], cm("boom", "{boom: 'yes'}"));
    expect(erroring.code).toBe(0);
    // Admitted with the error as a warning (emitWarning), not blocked.
    expect(erroring.stderr).toMatch(/Warning: policy lenient-on-errors\.broken: .*divide/);
  });

  it("indexes a later foreach's elementIndex into the list an earlier foreach patched", async () => {
    const created = await kubectl(
      ["apply", "-f", "-"],
      `apiVersion: v1
kind: Pod
metadata: {name: p, namespace: idx}
spec:
  containers:
  - {name: a, image: nginx}
  - {name: b, image: nginx}
  - {name: c, image: nginx}
`,
    );
    expect(created.stderr).toBe("");
    const got = await kubectl([
      "get",
      "pod",
      "p",
      "-n",
      "idx",
      "-o",
      `jsonpath={range .spec.containers[*]}{.name}={.env[0].value} {end}`,
    ]);
    expect(got.stdout.trim()).toBe("b=0 c=1");
  });

  it("rejects at kubectl apply each class of policy upstream's policy webhook rejects, naming the field", async () => {
    const rule = (body: string) => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: invalid}
spec:
${body}`;
    const cases: Record<string, string> = {
      requester: rule(`  background: true
  rules:
  - name: r
    match: {any: [{resources: {kinds: [ConfigMap]}}]}
    validate:
      deny: {conditions: {any: [{key: "{{ request.userInfo.username }}", operator: Equals, value: bob}]}}
`),
      neither: rule(`  admission: false
  background: false
  rules:
  - name: r
    match: {any: [{resources: {kinds: [ConfigMap]}}]}
    validate: {pattern: {data: {a: "?*"}}}
`),
      subresource: rule(`  background: true
  rules:
  - name: r
    match: {any: [{resources: {kinds: [Pod/exec]}}]}
    validate: {pattern: {spec: {a: "?*"}}}
`),
      noTargets: rule(`  rules:
  - name: r
    match: {any: [{resources: {kinds: [ConfigMap]}}]}
    mutate:
      mutateExistingOnPolicyUpdate: true
      patchStrategicMerge: {metadata: {labels: {a: b}}}
`),
      cloneList: rule(`  rules:
  - name: r
    match: {any: [{resources: {kinds: [Namespace]}}]}
    generate:
      namespace: "{{request.object.metadata.name}}"
      cloneList: {namespace: default, selector: {matchLabels: {a: b}}}
`),
      controlName: rule(`  rules:
  - name: r
    match: {any: [{resources: {kinds: [Pod]}}]}
    validate:
      podSecurity:
        level: baseline
        version: latest
        exclude: [{controlName: Not A Control}]
`),
    };
    const expected: Record<string, string> = {
      requester:
        "spec.rules[0].validate.deny.conditions.any[0].key: only select variables are allowed in background mode",
      neither: "spec.admission: disabling both admission and background processing is not allowed",
      subresource:
        "spec.rules[0].match.any[0].resources.kinds[0]: background scan enabled with subresource Pod/exec",
      noTargets:
        "spec.rules[0].mutate.targets: targets is required when mutateExistingOnPolicyUpdate is set to true",
      cloneList: "spec.rules[0].generate.kind: kind can not be empty",
      controlName: 'spec.rules[0].validate.podSecurity.exclude[0].controlName: invalid value "Not A Control"',
    };
    for (const [name, doc] of Object.entries(cases)) {
      const applied = await kubectl(["apply", "-f", "-"], doc);
      expect([name, applied.code]).toEqual([name, 1]);
      expect(applied.stderr).toContain('admission webhook "validate-policy.kyverno.svc" denied the request');
      expect(applied.stderr).toContain(expected[name]);
    }
    const stored = await client.get({ apiVersion: "kyverno.io/v1", kind: "ClusterPolicy", name: "invalid" });
    expect(stored.ok).toBe(false);
    // Not too strict: a synchronized clone whose source is named by variables is accepted, as upstream.
    const clone = await kubectl(
      ["apply", "-f", "-"],
      `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: clone-by-name}
spec:
  rules:
  - name: r
    match: {any: [{resources: {kinds: [ConfigMap], namespaces: [gen], names: ["clone-*"]}}]}
    generate:
      synchronize: true
      apiVersion: v1
      kind: Secret
      name: "{{request.object.metadata.name}}"
      namespace: gen
      clone: {namespace: kyverno, name: "{{request.object.data.source}}"}
`,
    );
    expect(clone.stderr).toBe("");
    expect(clone.code).toBe(0);
  });
});
