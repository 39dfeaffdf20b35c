/**
 * Pod Security exclusions of restricted volume types in a cluster (issue #18), through kubectl: the
 * `Volume Types` control is pod level (upstream's docs: `controlName` without `images` covers the spec
 * level), excluded whole by `controlName`, per volume by `restrictedField: spec.volumes[*].<type>` and
 * `values`, and by a PolicyException's `podSecurity`; a volume left out of the exclusion still denies.
 */
import type { KubeClient } from "@kyverno-ts/kube";
import { kubectlAvailable } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { policyReady, until } from "../testing/cluster.js";
import { type E2eCluster, startE2eCluster } from "../testing/e2e-cluster.js";

const hasKubectl = kubectlAvailable();
if (!hasKubectl)
  console.warn("skipping the Pod Security volume exclusion e2e suite: kubectl is not installed");

const rule = (name: string, namespace: string, exclude: string) => `
  - name: ${name}
    match: {any: [{resources: {kinds: [Pod], namespaces: [${namespace}]}}]}
    validate:
      podSecurity:
        level: restricted
        version: latest
        exclude: ${exclude}`;

const POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: psa-volumes}
spec:
  validationFailureAction: Enforce
  background: false
  rules:${rule("whole", "vt-whole", "[{controlName: Volume Types}]")}${rule(
    "flex-only",
    "vt-flex",
    "[{controlName: Volume Types, restrictedField: 'spec.volumes[*].flexVolume', values: [plugin]}]",
  )}${rule("none", "vt-none", "[{controlName: HostPath Volumes}]")}${rule("by-exception", "vt-exception", "[]")}
`;

const EXCEPTION = `apiVersion: kyverno.io/v2
kind: PolicyException
metadata: {name: volume-types, namespace: vt-exception}
spec:
  exceptions:
  - {policyName: psa-volumes, ruleNames: [by-exception]}
  match: {any: [{resources: {kinds: [Pod], namespaces: [vt-exception]}}]}
  podSecurity:
  - controlName: Volume Types
    restrictedField: spec.volumes[*].flexVolume
    values: [plugin]
`;

/** A Pod that passes every restricted check but Volume Types, with the given volumes. */
const pod = (name: string, namespace: string, volumes: string[]) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: ${namespace}}
spec:
  containers:
  - name: app
    image: nginx:1.27
    securityContext:
      allowPrivilegeEscalation: false
      runAsNonRoot: true
      seccompProfile: {type: RuntimeDefault}
      capabilities: {drop: [ALL]}
  volumes:
${volumes.map((v) => `  - ${v}`).join("\n")}
`;
const FLEX = "{name: plugin, flexVolume: {driver: example.com/lvm}}";
const NFS = "{name: share, nfs: {server: nfs.example.com, path: /exports}}";

describe.skipIf(!hasKubectl)(
  "Pod Security exclusions of restricted volume types, through kubectl",
  {
    timeout: 60_000,
  },
  () => {
    let cluster: E2eCluster;
    let client: KubeClient;
    let kubectl: E2eCluster["kubectl"];
    const apply = (yaml: string) => kubectl(["apply", "-f", "-"], yaml);

    beforeAll(async () => {
      cluster = await startE2eCluster({
        namespaces: ["kyverno", "vt-whole", "vt-flex", "vt-none", "vt-exception"],
        inProcess: { admission: { policyExceptions: { enabled: true } } },
      });
      ({ client, kubectl } = cluster);
      const applied = await apply(POLICY);
      expect(applied.stderr).toBe("");
      await policyReady(client, "psa-volumes");
      expect((await apply(EXCEPTION)).code).toBe(0);
    }, 90_000);
    afterAll(async () => {
      await cluster?.stop();
    });

    it("denies a flexVolume without an exclusion, naming the volume's field", async () => {
      const denied = await apply(pod("flex", "vt-none", [FLEX]));
      expect(denied.code).toBe(1);
      expect(denied.stderr).toContain(
        "(Forbidden reason: restricted volume types, field error list: [spec.volumes[0].flexVolume is forbidden, forbidden values found: plugin])",
      );
    });

    it("admits every restricted volume type when the control is excluded by name", async () => {
      const admitted = await apply(pod("both", "vt-whole", [FLEX, NFS]));
      expect(admitted.stderr).toBe("");
      expect(admitted.code).toBe(0);
    });

    it("exempts only the flexVolume named in values; another restricted type still denies", async () => {
      const flex = await apply(pod("flex", "vt-flex", [FLEX]));
      expect(flex.stderr).toBe("");
      const both = await apply(pod("both", "vt-flex", [FLEX, NFS]));
      expect(both.code).toBe(1);
      expect(both.stderr).toContain(
        "field error list: [spec.volumes[1].nfs is forbidden, forbidden values found: share]",
      );
      expect(both.stderr).not.toContain("spec.volumes[0].flexVolume");
      const other = await apply(
        pod("other", "vt-flex", ["{name: data, flexVolume: {driver: example.com/lvm}}"]),
      );
      expect(other.code).toBe(1);
      expect(other.stderr).toContain("spec.volumes[0].flexVolume is forbidden, forbidden values found: data");
    });

    it("exempts the flexVolume through a PolicyException's podSecurity, as a rule exclusion does", async () => {
      await until(
        async () => (await apply(pod("flex", "vt-exception", [FLEX]))).code === 0,
        15_000,
        "the PolicyException to apply",
      );
      const both = await apply(pod("both", "vt-exception", [FLEX, NFS]));
      expect(both.code).toBe(1);
      expect(both.stderr).toContain("spec.volumes[1].nfs is forbidden");
    });

    it("rejects images on the pod-level Volume Types control at kubectl apply", async () => {
      const rejected = await apply(`apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: psa-volume-images}
spec:
  rules:${rule("images", "vt-none", "[{controlName: Volume Types, images: ['*']}]")}
`);
      expect(rejected.code).toBe(1);
      expect(rejected.stderr).toContain(
        'exclude.images must not be specified for the pod level control "Volume Types"',
      );
    });
  },
);
