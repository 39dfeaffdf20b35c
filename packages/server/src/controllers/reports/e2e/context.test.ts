/** End to end against the sandbox: context entries (configMap, apiCall, globalReference) in background scans. */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { AnyPolicyReport, JsonValue } from "@kyverno-ts/api";
import { createEngine } from "@kyverno-ts/engine";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  allReports,
  CRDS,
  controllerFor,
  eventually,
  idle,
  namespace,
  pod,
  put,
  REPORT_CRDS,
} from "../testing/harness.js";

/** An Audit background policy on Pods with the given context and deny conditions. */
function contextPolicy(name: string, context: JsonValue[], deny: JsonValue) {
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name },
    spec: {
      validationFailureAction: "Audit",
      background: true,
      rules: [
        {
          name: "check",
          match: { any: [{ resources: { kinds: ["Pod"], namespaces: ["ctx"] } }] },
          context,
          validate: { message: `${name} denied`, deny: { conditions: { any: [deny] } } },
        },
      ],
    },
  };
}

const configMap = (name: string, data: Record<string, string>, labels: Record<string, string> = {}) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "ctx", labels },
  data,
});

/** `policy=result` of the report of one Pod, with the message of errors. */
async function outcomes(client: KubeClient, podName: string): Promise<Record<string, string>> {
  const report = (await allReports(client)).find(
    (r: AnyPolicyReport) => r.scope?.name === podName && r.metadata.namespace === "ctx",
  );
  const out: Record<string, string> = {};
  for (const r of report?.results ?? [])
    out[r.policy] = r.result === "error" ? `error: ${r.message}` : (r.result ?? "");
  return out;
}

describe("context entries in background scans (sandbox)", { timeout: 30_000 }, () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  let service: Server;
  let serviceUrl: string;
  beforeAll(async () => {
    sandbox = await startSandbox({
      crds: [...REPORT_CRDS, `${CRDS}kyverno/kyverno.io_globalcontextentries.yaml`],
      admission: false,
    });
    client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
    service = createServer((req, res) => {
      res.setHeader("content-type", "application/json");
      if (req.url === "/slow") return void setTimeout(() => res.end("{}"), 3000);
      if (req.url === "/big") res.end(JSON.stringify({ padding: "x".repeat(5000) }));
      else res.end(JSON.stringify({ registries: ["ghcr.io", "quay.io"] }));
    });
    await new Promise<void>((resolve) => service.listen(0, "127.0.0.1", resolve));
    serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    client?.close();
    await sandbox?.stop();
    await new Promise((resolve) => service?.close(resolve));
  });

  it("loads configMap, apiCall (API server and service) and globalReference entries through the client", async () => {
    await put(client, namespace("ctx"));
    await put(client, configMap("settings", { registry: "ghcr.io", next: "teams" }));
    await put(client, configMap("teams", { owner: "web" }, { kind: "teams" }));
    await put(client, {
      apiVersion: "kyverno.io/v2alpha1",
      kind: "GlobalContextEntry",
      metadata: { name: "team-maps" },
      spec: { kubernetesResource: { group: "", version: "v1", resource: "configmaps", namespace: "ctx" } },
    });
    await put(client, { ...pod("good", "ctx", { image: "ghcr.io/app:1" }) });
    await put(client, { ...pod("bad", "ctx", { image: "docker.io/app:1" }) });
    const image = "{{ request.object.spec.containers[0].image }}";
    const policies = [
      // A ConfigMap's data.
      contextPolicy(
        "registry-from-configmap",
        [{ name: "settings", configMap: { name: "settings", namespace: "ctx" } }],
        {
          key: image,
          operator: "NotEquals",
          value: "{{ settings.data.registry }}/*",
        },
      ),
      // A list from the API server, with a label selector and a JMESPath.
      contextPolicy(
        "owner-from-api",
        [
          {
            name: "owners",
            apiCall: {
              urlPath:
                "/api/v1/namespaces/{{ request.object.metadata.namespace }}/configmaps?labelSelector=kind=teams",
              jmesPath: "items[].data.owner",
            },
          },
        ],
        { key: "web", operator: "AnyNotIn", value: "{{ owners }}" },
      ),
      // An API call whose path comes from a ConfigMap: loaded in a second round.
      contextPolicy(
        "chained",
        [
          { name: "settings", configMap: { name: "settings", namespace: "ctx" } },
          {
            name: "team",
            apiCall: { urlPath: "/api/v1/namespaces/ctx/configmaps/{{ settings.data.next }}" },
          },
        ],
        { key: "{{ team.data.owner }}", operator: "NotEquals", value: "web" },
      ),
      // A service outside the cluster.
      contextPolicy(
        "registries-from-service",
        [
          {
            name: "allowed",
            apiCall: { service: { url: `${serviceUrl}/registries` }, jmesPath: "registries" },
          },
        ],
        {
          key: "{{ split('{{ request.object.spec.containers[0].image }}', '/')[0] }}",
          operator: "AnyNotIn",
          value: "{{ allowed }}",
        },
      ),
      // A GlobalContextEntry's objects.
      contextPolicy(
        "global-maps",
        [{ name: "maps", globalReference: { name: "team-maps", jmesPath: "[].metadata.name" } }],
        { key: "settings", operator: "AnyNotIn", value: "{{ maps }}" },
      ),
      // Errors: a ConfigMap that does not exist, a response over the size budget.
      contextPolicy("missing-configmap", [{ name: "gone", configMap: { name: "gone", namespace: "ctx" } }], {
        key: "{{ gone.data.x }}",
        operator: "Equals",
        value: "y",
      }),
      contextPolicy("too-slow", [{ name: "slow", apiCall: { service: { url: `${serviceUrl}/slow` } } }], {
        key: "{{ slow.x }}",
        operator: "Equals",
        value: "",
      }),
      contextPolicy("too-big", [{ name: "big", apiCall: { service: { url: `${serviceUrl}/big` } } }], {
        key: "{{ big.padding }}",
        operator: "Equals",
        value: "",
      }),
    ];
    for (const p of policies) await put(client, p);
    const controller = controllerFor(client, {
      engine: (contextLoader) => createEngine({ contextLoader }),
      // Room for the namespace's ConfigMaps (kube-root-ca.crt holds a CA), not for the 5,000-byte answer.
      contextLimits: { maxResponseBytes: 4000, timeoutMs: 300 },
    });
    await controller.start();
    try {
      await eventually(
        async () => idle(controller) && Object.keys(await outcomes(client, "bad")).length === 8,
      );
      const good = await outcomes(client, "good");
      const bad = await outcomes(client, "bad");
      for (const name of ["owner-from-api", "chained", "global-maps"]) {
        expect(good[name]).toBe("pass");
        expect(bad[name]).toBe("pass");
      }
      expect(good["registry-from-configmap"]).toBe("pass");
      expect(bad["registry-from-configmap"]).toBe("fail");
      expect(good["registries-from-service"]).toBe("pass");
      expect(bad["registries-from-service"]).toBe("fail");
      expect(good["missing-configmap"]).toMatch(/^error: .*configMap ctx\/gone.*NotFound/);
      expect(good["too-slow"]).toMatch(/^error: .*timed out after 300 ms/);
      expect(good["too-big"]).toMatch(/^error: .*response larger than 4000 bytes/);

      // The next full scan reads the ConfigMap again: the results follow it.
      await put(client, configMap("settings", { registry: "docker.io", next: "teams" }));
      controller.rescan();
      // Both Pods are rescanned, in no particular order.
      await eventually(
        async () =>
          (await outcomes(client, "bad"))["registry-from-configmap"] === "pass" &&
          (await outcomes(client, "good"))["registry-from-configmap"] === "fail",
        10_000,
        "the changed ConfigMap to be read at the next scan",
      );
    } finally {
      await controller.stop();
    }
  });
});
