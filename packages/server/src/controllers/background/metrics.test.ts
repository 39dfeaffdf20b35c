import type { CelPolicy, KubeObject } from "@kyverno-ts/api";
import { createCelEngine, createEngine } from "@kyverno-ts/engine";
import type { KubeClient } from "@kyverno-ts/kube";
import { describe, expect, it } from "vitest";
import type { ScanContext } from "../../external-data/scan-context.js";
import { silentLogger } from "../../logger.js";
import { createCelPolicyStore } from "../../policycache/cel-policy-store.js";
import { createPolicyCache } from "../../policycache/policy-cache.js";
import { createGeneratedKinds, processCelGenerate } from "./cel-generate.js";
import { createBackgroundMetrics } from "./metrics.js";
import { type UpdateRequestIntent, updateRequestFor } from "./update-request.js";

const probe = {
  cpuSeconds: () => 0,
  residentBytes: () => 0,
  heapUsedBytes: () => 0,
  startTimeSeconds: () => 0,
};

const generating = {
  apiVersion: "policies.kyverno.io/v1",
  kind: "GeneratingPolicy",
  metadata: { name: "team-defaults" },
  spec: {
    matchConstraints: {
      resourceRules: [
        { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["namespaces"] },
      ],
    },
    generate: [
      {
        expression:
          'generator.Apply(object.metadata.name, [{"apiVersion": dyn("v1"), "kind": dyn("ConfigMap"), "metadata": dyn({"name": "defaults"})}])',
      },
    ],
  },
} as unknown as CelPolicy;

/** A cluster holding one Namespace; creates succeed. */
function fakeClient(): KubeClient {
  const namespace: KubeObject = {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: "team-a", uid: "u-1" },
  };
  return {
    async get(ref: { kind: string; name: string }) {
      return ref.kind === "Namespace" && ref.name === "team-a"
        ? { ok: true, status: 200, value: namespace }
        : { ok: false, status: 404, reason: "NotFound", message: "" };
    },
    async create(o: KubeObject) {
      return { ok: true, status: 201, value: o };
    },
  } as unknown as KubeClient;
}

const intent = (operation?: string): UpdateRequestIntent => ({
  requestType: "cel-generate",
  policy: "team-defaults",
  rules: ["team-defaults"],
  deleteDownstream: false,
  trigger: { apiVersion: "v1", kind: "Namespace", namespace: "", name: "team-a", uid: "u-1" },
  ...(operation ? { operation } : {}),
});

describe("kyverno_generating_policy_execution_duration_seconds", () => {
  it("is recorded per GeneratingPolicy evaluation, with upstream's labels and the cause", async () => {
    const metrics = createBackgroundMetrics({ processProbe: probe });
    const celEngine = createCelEngine();
    const celPolicies = createCelPolicyStore({ engine: celEngine });
    celPolicies.set(generating);
    const engine = createEngine();
    let now = 0;
    const deps = {
      client: fakeClient(),
      cache: createPolicyCache({ engine }),
      engine,
      scan: { loader: {}, evaluate: <T>(fn: () => T) => Promise.resolve(fn()) } as unknown as ScanContext,
      logger: silentLogger(),
      namespaceLabels: () => undefined,
      user: "background",
      celEngine,
      celPolicies,
      generatedKinds: createGeneratedKinds(),
      // Each reading advances 250 ms: one evaluation takes 0.25 s.
      monotonic: () => {
        now += 250;
        return now;
      },
      onEvaluated: metrics.generatingPolicyExecution,
    };
    const signal = new AbortController().signal;
    expect(
      (await processCelGenerate(deps, updateRequestFor(intent("CREATE"), "kyverno"), signal)).state,
    ).toBe("Completed");
    await processCelGenerate(deps, updateRequestFor(intent(), "kyverno"), signal);
    const text = await metrics.render();
    const series = text
      .split("\n")
      .filter((l) => l.startsWith("kyverno_generating_policy_execution_duration_seconds_count"));
    const labels =
      'policy_background_mode="true",policy_name="team-defaults",resource_kind="Namespace",resource_namespace="",resource_request_operation="create"';
    expect(series).toEqual([
      `kyverno_generating_policy_execution_duration_seconds_count{${labels},execution_cause="admission_request",result="PASS"} 1`,
      `kyverno_generating_policy_execution_duration_seconds_count{${labels},execution_cause="background_scan",result="PASS"} 1`,
    ]);
    expect(text).toContain(
      `kyverno_generating_policy_execution_duration_seconds_sum{${labels},execution_cause="admission_request",result="PASS"} 0.25`,
    );
  });
});
