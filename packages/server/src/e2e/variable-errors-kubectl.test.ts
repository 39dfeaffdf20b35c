/**
 * Variables that cannot be resolved at admission (issue #18, d111c90), through kubectl: an Enforce
 * rule whose pattern or deny condition reads a name that is not in the context when it is evaluated
 * blocks the request with upstream's JMESPath error — `failed to resolve X at path P: JMESPath query
 * failed: Unknown key "root" in path`, the wording of the JMESPath docs — not a message of our own.
 * A plain typo never gets that far (the policy webhook rejects undeclared names at apply, as
 * upstream's); a name declared by a later foreach entry does. `kyverno-ts admission` runs as its own
 * process against the sandbox.
 */
import { kubectlAvailable } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { policyReady, until } from "../testing/cluster.js";
import { type E2eCluster, startE2eCluster } from "../testing/e2e-cluster.js";

const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn("skipping the variable errors e2e suite: kubectl is not installed");

// The policy webhook accepts a variable that reads a context entry of any foreach of the rule (as
// upstream's does), but each foreach entry loads only its own: read from an earlier entry, the name
// is unknown at admission.
const POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: unknown-variables}
spec:
  validationFailureAction: Enforce
  background: false
  rules:
  - name: registry-too-early
    match: {any: [{resources: {kinds: [Pod], namespaces: [vars], selector: {matchLabels: {check: pattern}}}}]}
    validate:
      message: images come from the registry
      foreach:
      - list: request.object.spec.containers
        pattern: {image: "{{ registry }}*"}
      - list: request.object.spec.containers
        context: [{name: registry, variable: {value: ghcr.io/}}]
        pattern: {name: "?*"}
  - name: owner-too-early
    match: {any: [{resources: {kinds: [Pod], namespaces: [vars], selector: {matchLabels: {check: deny}}}}]}
    validate:
      message: containers need the owner's name
      foreach:
      - list: request.object.spec.containers
        deny:
          conditions:
            all:
            - {key: "{{ owner.name }}", operator: NotEquals, value: "{{ element.name }}"}
      - list: request.object.spec.containers
        context: [{name: owner, variable: {value: {name: app}}}]
        pattern: {name: "?*"}
`;

const pod = (name: string, check: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: vars, labels: {check: ${check}}}
spec:
  containers:
  - {name: app, image: nginx:1.27}
`;

describe.skipIf(!hasKubectl)(
  "unresolvable variables at admission, through kubectl",
  { timeout: 60_000 },
  () => {
    let cluster: E2eCluster;
    let kubectl: E2eCluster["kubectl"];

    beforeAll(async () => {
      cluster = await startE2eCluster({ namespaces: ["kyverno", "vars"] });
      ({ kubectl } = cluster);
      await cluster.webhooks("ValidatingWebhookConfiguration", "kyverno-policy-validating-webhook-cfg");
      const applied = await kubectl(["apply", "-f", "-"], POLICY);
      expect(applied.stderr).toBe("");
      await policyReady(cluster.client, "unknown-variables", { ms: 30_000 });
      // The resource webhook is registered once the policy is: until then Pods are not sent to it.
      await until(
        async () =>
          (await kubectl(["apply", "--dry-run=server", "-f", "-"], pod("probe", "pattern"))).code === 1,
        30_000,
        "the Pod webhook",
      );
    }, 180_000);
    afterAll(() => cluster?.stop(), 30_000);

    const blocked = async (name: string, check: string, rule: string, error: string): Promise<void> => {
      const denied = await kubectl(["apply", "-f", "-"], pod(name, check));
      expect(denied.code, denied.stdout).toBe(1);
      expect(denied.stderr).toContain(`resource Pod/vars/${name} was blocked due to the following policies`);
      expect(denied.stderr).toContain(`unknown-variables:\n  ${rule}: `);
      expect(denied.stderr).toContain(error);
      expect(await cluster.get("Pod", "vars", name)).toBeUndefined();
    };

    it("blocks a Pod whose pattern reads a name not in the context, in upstream's words", async () => {
      await blocked(
        "by-pattern",
        "pattern",
        "registry-too-early",
        'variable substitution failed: failed to resolve registry at path /validate/foreach/0/pattern/image: JMESPath query failed: Unknown key "registry" in path',
      );
    });

    it("blocks a Pod whose deny condition reads a name not in the context, in upstream's words", async () => {
      await blocked(
        "by-deny",
        "deny",
        "owner-too-early",
        'failed to check deny conditions: failed to resolve owner.name at path /validate/foreach/0/deny/conditions/all/0/key: JMESPath query failed: Unknown key "owner" in path',
      );
    });
  },
);
