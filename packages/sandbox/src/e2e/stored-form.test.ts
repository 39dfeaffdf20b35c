/**
 * What kube-apiserver does to built-in objects before webhooks see them and before it stores them,
 * through the real kubectl: empty `omitempty` lists and maps dropped, the deprecated
 * `serviceAccount` kept in step, and the ServiceAccount admission plugin's token volume on Pods.
 */
import type { JsonObject } from "@kyverno-ts/api";
import { kubectlAvailable, kubectlFor, NO_KUBECTL } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdmissionAttributes } from "../admission/types.js";
import { type Sandbox, startSandbox } from "../index.js";

const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn(`skipping the stored form e2e: ${NO_KUBECTL}`);

const MOUNT = "/var/run/secrets/kubernetes.io/serviceaccount";

const POD = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: forms, labels: {}, annotations: {}}
spec:
  volumes: []
  initContainers:
  - {name: init, image: busybox, env: [], command: []}
  containers:
  - name: app
    image: nginx
    env: []
    ports: []
    volumeMounts: []
    securityContext: {}
    resources: {limits: {}, requests: {}}
  - name: own-token
    image: nginx
    volumeMounts: [{name: mine, mountPath: ${MOUNT}}]
  tolerations: []
  nodeSelector: {}
`;

interface PodView {
  metadata: { labels?: unknown; annotations?: Record<string, string> };
  spec: {
    serviceAccountName?: string;
    serviceAccount?: string;
    automountServiceAccountToken?: boolean;
    imagePullSecrets?: unknown;
    volumes?: Array<{ name: string; projected?: JsonObject }>;
    initContainers: Array<{ env?: unknown; command?: unknown; volumeMounts?: JsonObject[] }>;
    containers: Array<Record<string, unknown> & { volumeMounts?: JsonObject[] }>;
    tolerations?: unknown;
    nodeSelector?: unknown;
  };
}

describe.skipIf(!hasKubectl)(
  "the stored form of built-in objects, through kubectl",
  { timeout: 30_000 },
  () => {
    let sandbox: Sandbox;
    let kubectl: ReturnType<typeof kubectlFor>;
    const admitted: AdmissionAttributes[] = [];
    beforeAll(async () => {
      sandbox = await startSandbox({
        // A chain that records what the webhooks would see and admits it unchanged.
        admission: {
          async admit(attrs) {
            admitted.push(attrs);
            return { allowed: true, object: attrs.object, warnings: [], auditAnnotations: {} };
          },
        },
      });
      kubectl = kubectlFor(sandbox.kubeconfigPath);
      expect((await kubectl(["create", "namespace", "forms"])).code).toBe(0);
    });
    afterAll(async () => {
      await sandbox?.stop();
    });

    const getPod = async (name: string): Promise<PodView> => {
      const got = await kubectl(["get", "pod", name, "-n", "forms", "-o", "json"]);
      expect(got.stderr).toBe("");
      return JSON.parse(got.stdout) as PodView;
    };

    it("drops empty omitempty lists and maps, keeps empty structs", async () => {
      const applied = await kubectl(["apply", "-f", "-"], POD);
      expect(applied.stderr).toBe("");
      const pod = await getPod("web");
      expect(pod.metadata.labels).toBeUndefined();
      expect(Object.keys(pod.metadata.annotations ?? {})).toEqual([
        "kubectl.kubernetes.io/last-applied-configuration",
      ]);
      const app = pod.spec.containers[0] ?? {};
      expect(app.env).toBeUndefined();
      expect(app.ports).toBeUndefined();
      expect(app.securityContext).toEqual({});
      expect(app.resources).toEqual({});
      expect(pod.spec.initContainers[0]?.env).toBeUndefined();
      expect(pod.spec.initContainers[0]?.command).toBeUndefined();
      expect(pod.spec.tolerations).toBeUndefined();
      expect(pod.spec.nodeSelector).toBeUndefined();
      // Applying it again patches the empties back in (kubectl sees them missing) and they are dropped again.
      expect((await kubectl(["apply", "-f", "-"], POD)).code).toBe(0);
      const again = await getPod("web");
      expect(again.spec.containers[0]?.env).toBeUndefined();
      expect(again.metadata.labels).toBeUndefined();
    });

    it("injects the ServiceAccount token volume and mounts before the webhooks see the Pod", async () => {
      const pod = await getPod("web");
      expect(pod.spec.serviceAccountName).toBe("default");
      expect(pod.spec.serviceAccount).toBe("default");
      const volumes = pod.spec.volumes ?? [];
      expect(volumes).toHaveLength(1);
      const volume = volumes[0] ?? { name: "" };
      expect(volume.name).toMatch(/^kube-api-access-[a-z0-9]{5}$/);
      expect(volume.projected).toEqual({
        defaultMode: 420,
        sources: [
          { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
          { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
          {
            downwardAPI: {
              items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }],
            },
          },
        ],
      });
      const tokenMount = { name: volume.name, readOnly: true, mountPath: MOUNT };
      expect(pod.spec.initContainers[0]?.volumeMounts).toEqual([tokenMount]);
      expect(pod.spec.containers[0]?.volumeMounts).toEqual([tokenMount]);
      // A container with its own mount at the token path keeps it alone.
      expect(pod.spec.containers[1]?.volumeMounts).toEqual([{ name: "mine", mountPath: MOUNT }]);

      const review = admitted.find((a) => a.operation === "CREATE" && a.name === "web");
      const seen = review?.object as unknown as PodView;
      expect(seen.spec.serviceAccountName).toBe("default");
      expect(seen.spec.volumes?.[0]?.name).toBe(volume.name);
      expect(seen.spec.containers[0]?.env).toBeUndefined();
    });

    it("mounts no token when the Pod or its ServiceAccount opts out, and copies the ServiceAccount's pull secrets", async () => {
      const sa = `apiVersion: v1
kind: ServiceAccount
metadata: {name: quiet, namespace: forms}
automountServiceAccountToken: false
imagePullSecrets: [{name: registry}]
`;
      expect((await kubectl(["apply", "-f", "-"], sa)).code).toBe(0);
      const pod = (name: string, extra: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: forms}
spec:
${extra}
  containers: [{name: app, image: nginx}]
`;
      const created = await kubectl(
        ["apply", "-f", "-"],
        [
          pod("opt-out", "  automountServiceAccountToken: false"),
          pod("quiet-sa", "  serviceAccount: quiet"),
          pod("opt-in", "  serviceAccountName: quiet\n  automountServiceAccountToken: true"),
        ].join("---\n"),
      );
      expect(created.stderr).toBe("");

      const optOut = await getPod("opt-out");
      expect(optOut.spec.volumes).toBeUndefined();
      expect(optOut.spec.containers[0]?.volumeMounts).toBeUndefined();
      expect(optOut.spec.serviceAccountName).toBe("default");

      const quiet = await getPod("quiet-sa");
      expect(quiet.spec.serviceAccountName).toBe("quiet");
      expect(quiet.spec.volumes).toBeUndefined();
      expect(quiet.spec.imagePullSecrets).toEqual([{ name: "registry" }]);

      const optIn = await getPod("opt-in");
      expect(optIn.spec.volumes?.[0]?.name).toMatch(/^kube-api-access-/);
    });

    it("gives every namespace a default ServiceAccount and refuses Pods naming one that does not exist", async () => {
      expect((await kubectl(["get", "serviceaccount", "default", "-n", "forms", "-o", "name"])).stdout).toBe(
        "serviceaccount/default\n",
      );
      expect((await kubectl(["delete", "serviceaccount", "default", "-n", "forms"])).code).toBe(0);
      await sandbox.settled();
      expect((await kubectl(["get", "serviceaccount", "default", "-n", "forms", "-o", "name"])).stdout).toBe(
        "serviceaccount/default\n",
      );
      const refused = await kubectl(
        ["apply", "-f", "-"],
        `apiVersion: v1
kind: Pod
metadata: {name: ghost, namespace: forms}
spec:
  serviceAccountName: ghost
  containers: [{name: app, image: nginx}]
`,
      );
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(
        'pods "ghost" is forbidden: error looking up service account forms/ghost: serviceaccount "ghost" not found',
      );
    });

    it("keeps lists without omitempty and the deprecated serviceAccount of Pod templates in step", async () => {
      const role = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: nothing, labels: {}}
rules: []
`;
      expect((await kubectl(["apply", "-f", "-"], role)).code).toBe(0);
      const stored = JSON.parse((await kubectl(["get", "clusterrole", "nothing", "-o", "json"])).stdout);
      expect(stored.rules).toEqual([]);
      expect(stored.metadata.labels).toBeUndefined();

      const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: legacy, namespace: forms}
spec:
  selector: {matchLabels: {app: legacy}}
  template:
    metadata: {labels: {app: legacy}}
    spec:
      serviceAccount: builder
      containers: [{name: app, image: nginx, args: []}]
`;
      expect((await kubectl(["apply", "-f", "-"], deployment)).code).toBe(0);
      const spec = await kubectl([
        "get",
        "deployment",
        "legacy",
        "-n",
        "forms",
        "-o",
        "jsonpath={.spec.template.spec.serviceAccountName}/{.spec.template.spec.serviceAccount}/{.spec.template.spec.containers[0].args}",
      ]);
      expect(spec.stdout).toBe("builder/builder/");
    });
  },
);
