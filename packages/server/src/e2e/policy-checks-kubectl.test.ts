/**
 * More of issue #18's policy validation and pattern semantics, end to end: the admission controller
 * (cluster mode, PolicyExceptions enabled in `kyverno`) in process against the sandbox, driven by
 * kubectl. The policy webhook rejects mutate targets naming variables not allowed there and a
 * namespaced Policy generating into another namespace, and warns about `generateExisting` without a
 * generate rule; the exception webhook rejects an exception without a policy name; a conditional
 * anchor that skips every container does not skip the privileged init container.
 */
import { fileURLToPath } from "node:url";
import type { KubeObject, PolicyReportResult } from "@kyverno-ts/api";
import type { KubeClient } from "@kyverno-ts/kube";
import { kubectlAvailable } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { policyReady, until } from "../testing/cluster.js";
import { type E2eCluster, startE2eCluster } from "../testing/e2e-cluster.js";

const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn("skipping the policy checks e2e suite: kubectl is not installed");

const REPORT_CRDS = ["wgpolicyk8s.io_policyreports.yaml", "wgpolicyk8s.io_clusterpolicyreports.yaml"].map(
  (f) =>
    fileURLToPath(new URL(`../../../../../shared/reference/kyverno-crds/policyreport/${f}`, import.meta.url)),
);

/** Two ways a rule skips: a conditional anchor that does not hold, preconditions not met. */
const SKIPPING = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: skips}
spec:
  validationFailureAction: Audit
  background: false
  rules:
  - name: web-needs-team
    match: {any: [{resources: {kinds: [ConfigMap], namespaces: [team]}}]}
    validate:
      message: web ConfigMaps need a team
      pattern: {metadata: {labels: {(tier): web, team: "?*"}}}
  - name: only-checked
    match: {any: [{resources: {kinds: [ConfigMap], namespaces: [team]}}]}
    preconditions:
      all:
      - {key: "{{ request.object.metadata.labels.check || '' }}", operator: Equals, value: "yes"}
    validate:
      message: checked ConfigMaps need data
      pattern: {data: {a: "?*"}}
`;

const PRIVILEGED_INIT = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: no-privileged-app}
spec:
  validationFailureAction: Enforce
  background: false
  rules:
  - name: privileged
    match: {any: [{resources: {kinds: [Pod], namespaces: [anchors]}}]}
    validate:
      message: privileged containers are not allowed
      pattern:
        spec:
          containers:
          - (name): "app-*"
            =(securityContext): {=(privileged): "false"}
          =(initContainers):
          - =(securityContext): {=(privileged): "false"}
`;

const pod = (containers: string, init = "") => `apiVersion: v1
kind: Pod
metadata: {name: p${Math.random().toString(36).slice(2, 8)}, namespace: anchors}
spec:
${init}  containers:
${containers}`;

describe.skipIf(!hasKubectl)("policy checks and anchors, through kubectl", { timeout: 60_000 }, () => {
  let cluster: E2eCluster;
  let client: KubeClient;
  let kubectl: E2eCluster["kubectl"];

  beforeAll(async () => {
    cluster = await startE2eCluster({
      crds: REPORT_CRDS,
      namespaces: ["kyverno", "team", "anchors"],
      inProcess: {
        admission: {
          policyExceptions: { enabled: true, namespace: "kyverno" },
          publishEphemeralReports: true,
        },
        reports: true,
      },
    });
    ({ client, kubectl } = cluster);
    await cluster.webhooks("ValidatingWebhookConfiguration", "kyverno-exception-validating-webhook-cfg");
    const applied = await kubectl(["apply", "-f", "-"], `${PRIVILEGED_INIT}---\n${SKIPPING}`);
    expect(applied.stderr).toBe("");
    await policyReady(client, "no-privileged-app");
    await policyReady(client, "skips");
  }, 90_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  const rejected = async (doc: string, webhook: string, ...expected: string[]): Promise<void> => {
    const applied = await kubectl(["apply", "-f", "-"], doc);
    expect(applied.code, applied.stdout).toBe(1);
    expect(applied.stderr).toContain(`admission webhook "${webhook}" denied the request`);
    for (const text of expected) expect(applied.stderr).toContain(text);
  };

  it("rejects a mutate target named by the target's own fields, naming the target", async () => {
    await rejected(
      `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: self-target}
spec:
  rules:
  - name: r
    match: {any: [{resources: {kinds: [ConfigMap]}}]}
    mutate:
      targets:
      - {apiVersion: v1, kind: Secret, namespace: team, name: "{{ target.metadata.labels.app }}"}
      patchStrategicMerge: {metadata: {labels: {a: b}}}
`,
      "validate-policy.kyverno.svc",
      "invalid variables defined at mutate.targets[0]",
      "target.metadata.labels.app",
    );
  });

  it("rejects a namespaced Policy generating into another namespace", async () => {
    await rejected(
      `apiVersion: kyverno.io/v1
kind: Policy
metadata: {name: elsewhere, namespace: team}
spec:
  rules:
  - name: r
    match: {any: [{resources: {kinds: [ConfigMap]}}]}
    generate:
      apiVersion: v1
      kind: ConfigMap
      name: copy
      namespace: anchors
      data: {data: {a: "1"}}
`,
      "validate-policy.kyverno.svc",
      "spec.rules[0].generate.namespace",
      "a namespaced policy cannot generate resources in other namespaces, expected: team, received: anchors",
    );
  });

  it("warns at kubectl apply about generateExisting on a policy without generate rules", async () => {
    const applied = await kubectl(
      ["apply", "-f", "-"],
      `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: nothing-to-generate}
spec:
  generateExisting: true
  background: false
  rules:
  - name: r
    match: {any: [{resources: {kinds: [ConfigMap], namespaces: [team]}}]}
    validate: {pattern: {data: {a: "?*"}}}
`,
    );
    expect(applied.code).toBe(0);
    expect(applied.stderr).toContain("Warning:");
    expect(applied.stderr).toContain("generateExisting applies to generate rules");
  });

  it("rejects a PolicyException without a policy name at the exception webhook", async () => {
    await rejected(
      `apiVersion: kyverno.io/v2
kind: PolicyException
metadata: {name: nameless, namespace: kyverno}
spec:
  exceptions:
  - {policyName: "", ruleNames: [r]}
  match: {any: [{resources: {kinds: [Pod]}}]}
`,
      "validate-exception.kyverno.svc",
      "spec.exceptions[0].policyName",
      "An exception requires a policy name",
    );
  });

  it("reports skips in upstream's words, without a 'rule X skipped:' prefix", async () => {
    // Labelled, but without the tier the conditional anchor looks for.
    const created = await kubectl(
      ["apply", "-f", "-"],
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain, namespace: team, labels: {app: plain}}\ndata: {b: '1'}\n",
    );
    expect(created.stderr).toBe("");
    const got = await client.get<KubeObject>({
      apiVersion: "v1",
      kind: "ConfigMap",
      namespace: "team",
      name: "plain",
    });
    if (!got.ok) throw new Error(got.message);
    let results: PolicyReportResult[] = [];
    await until(
      async () => {
        const r = await client.get<KubeObject & { results?: PolicyReportResult[] }>({
          apiVersion: "wgpolicyk8s.io/v1alpha2",
          kind: "PolicyReport",
          namespace: "team",
          name: String(got.value.metadata?.uid ?? ""),
        });
        // The other policies' rows (nothing-to-generate's) are not this test's.
        results = (r.ok ? (r.value.results ?? []) : []).filter((x) => x.policy === "skips");
        return results.length === 2;
      },
      20_000,
      "the ConfigMap's report",
    ).catch((e: unknown) => {
      throw new Error(`${String(e)}; results: ${JSON.stringify(results)}`);
    });
    expect(results.map((r) => [r.rule, r.result, r.message]).sort()).toEqual([
      ["only-checked", "skip", "preconditions not met"],
      [
        "web-needs-team",
        "skip",
        "conditional anchor mismatch: conditional anchor key doesn't exist in the resource",
      ],
    ]);
  });

  it("denies a privileged init container even when the conditional anchor skips every container", async () => {
    const denied = await kubectl(
      ["apply", "-f", "-"],
      pod(
        "  - {name: web, image: nginx}\n",
        "  initContainers:\n  - {name: setup, image: busybox, securityContext: {privileged: true}}\n",
      ),
    );
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain("no-privileged-app");
    expect(denied.stderr).toContain("privileged containers are not allowed");
    const admitted = await kubectl(
      ["apply", "-f", "-"],
      pod(
        "  - {name: web, image: nginx}\n",
        "  initContainers:\n  - {name: setup, image: busybox, securityContext: {privileged: false}}\n",
      ),
    );
    expect(admitted.stderr).toBe("");
  });
});
