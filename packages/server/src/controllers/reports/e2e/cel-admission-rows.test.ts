/**
 * End to end against the sandbox, in process: the admission rows of the CEL kinds — a MutatingPolicy's
 * (mutating webhook), a GeneratingPolicy's (background controller), a ValidatingPolicy's whose
 * background scans are off — reach the resource's PolicyReport with upstream's fields (the exceptions
 * guide's GeneratingPolicy report: rule named after the policy, `policy evaluated successfully`;
 * the CLI guide's ValidatingPolicy pass: `success`), and survive a restart of the reports controller
 * and a rescan that rewrites the report: they are read back from the report, not kept in memory.
 */
import type { CelPolicy, KubeObject, PolicyReportResult } from "@kyverno-ts/api";
import { type CompiledCelPolicy, createCelEngine, type PolicyResponse } from "@kyverno-ts/engine";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AdmissionPhase, createBoundedResultQueue } from "../../admission/results.js";
import {
  allReports,
  CRDS,
  controllerFor,
  eventually,
  idle,
  namespace,
  put,
  REPORT_CRDS,
} from "../testing/harness.js";

const configMaps = {
  resourceRules: [
    { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["configmaps"] },
  ],
};

const requireLabel = (name: string, label: string, background: boolean) => ({
  apiVersion: "policies.kyverno.io/v1",
  kind: "ValidatingPolicy",
  metadata: { name },
  spec: {
    validationActions: ["Audit"],
    evaluation: { background: { enabled: background } },
    matchConstraints: configMaps,
    validations: [
      {
        expression: `has(object.metadata.labels) && '${label}' in object.metadata.labels`,
        message: `the label ${label} is required`,
      },
    ],
  },
});

/** An unscored policy (`policies.kyverno.io/scored: "false"`): its failures are reported as warnings. */
const UNSCORED = (() => {
  const p = requireLabel("unscored-owner", "owner", false);
  return { ...p, metadata: { ...p.metadata, annotations: { "policies.kyverno.io/scored": "false" } } };
})();

const STAMP = {
  apiVersion: "policies.kyverno.io/v1",
  kind: "MutatingPolicy",
  metadata: { name: "stamp" },
  spec: {
    matchConstraints: configMaps,
    mutations: [
      {
        patchType: "ApplyConfiguration",
        applyConfiguration: {
          expression: "Object{metadata: Object.metadata{annotations: {'stamped': 'yes'}}}",
        },
      },
    ],
  },
};

const COMPANION = {
  apiVersion: "policies.kyverno.io/v1",
  kind: "GeneratingPolicy",
  metadata: { name: "companion" },
  spec: {
    matchConstraints: configMaps,
    matchConditions: [{ name: "app", expression: "object.metadata.name == 'app'" }],
    generate: [
      {
        expression: `generator.Apply(object.metadata.namespace, [{"apiVersion": dyn("v1"), "kind": dyn("ConfigMap"),
          "metadata": dyn({"name": "companion"}), "data": dyn({"for": object.metadata.name})}])`,
      },
    ],
  },
};

describe("CEL policies' admission rows in PolicyReports (sandbox)", { timeout: 60_000 }, () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  beforeAll(async () => {
    sandbox = await startSandbox({
      crds: [
        ...REPORT_CRDS,
        ...["validatingpolicies", "mutatingpolicies", "generatingpolicies"].map(
          (p) => `${CRDS}policies.kyverno.io/policies.kyverno.io_${p}.yaml`,
        ),
      ],
      admission: false,
    });
    client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
  }, 60_000);
  afterAll(async () => {
    client?.close();
    await sandbox?.stop();
  });

  it("writes them with upstream's fields and keeps them across a restart and a rescan", async () => {
    await put(client, namespace("celrows"));
    const policies = [
      requireLabel("audit-owner", "owner", false),
      requireLabel("scan-team", "team", true),
      UNSCORED,
      STAMP,
      COMPANION,
    ];
    for (const p of policies) await put(client, p);
    const results = createBoundedResultQueue({ capacity: 100 });
    const first = controllerFor(client, { admissionResults: results });
    await first.start();

    const engine = createCelEngine();
    const compiled = new Map<string, CompiledCelPolicy>();
    for (const p of policies) {
      const c = engine.compile(p as unknown as CelPolicy);
      if (!c.ok) throw new Error(p.metadata.name);
      compiled.set(p.metadata.name, c.policy);
    }
    const policy = (name: string): CompiledCelPolicy => {
      const c = compiled.get(name);
      if (c === undefined) throw new Error(name);
      return c;
    };
    const stored = await put(client, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "app", namespace: "celrows", annotations: { stamped: "yes" } },
      data: { a: "1" },
    });
    const resource = {
      apiVersion: "v1",
      kind: "ConfigMap",
      namespace: "celrows",
      name: "app",
      uid: String(stored.metadata?.uid),
    };
    const offer = (phase: AdmissionPhase, responses: PolicyResponse[]) =>
      results.offer({
        uid: `request-${phase}`,
        timestamp: Date.now(),
        operation: "CREATE",
        resource,
        responses,
        phase,
      });
    const request = { resource: stored, operation: "CREATE" as const };
    offer("mutate", [engine.mutate(policy("stamp"), request)]);
    offer("validate", [
      engine.validate(policy("audit-owner"), request),
      engine.validate(policy("scan-team"), request),
      engine.validate(policy("unscored-owner"), request),
    ]);
    offer("generate", [engine.generate(policy("companion"), request)]);

    const appRows = async (): Promise<PolicyReportResult[]> =>
      (await allReports(client))
        .filter((r) => r.metadata.namespace === "celrows" && r.scope?.name === "app")
        .flatMap((r) => r.results ?? []);
    const rows = async () =>
      (await appRows())
        .map(
          (x) =>
            `${x.source} ${x.policy}/${x.rule}=${x.result} (${x.properties?.process}): ${x.message ?? ""}`,
        )
        .sort();
    const admissionRows = [
      "KyvernoGeneratingPolicy companion/companion=pass (admission review): policy evaluated successfully",
      "KyvernoMutatingPolicy stamp/=pass (admission review): success",
      "KyvernoValidatingPolicy audit-owner/=fail (admission review): the label owner is required",
      "KyvernoValidatingPolicy unscored-owner/=warn (admission review): the label owner is required",
    ];
    const failing = "KyvernoValidatingPolicy scan-team/=fail (background scan): the label team is required";
    await eventually(async () => (await rows()).length === 5, 15_000, "admission and scan rows");
    expect(await rows()).toEqual([...admissionRows, failing].sort());
    expect((await appRows()).find((r) => r.policy === "unscored-owner")?.scored).toBe(false);
    // The GeneratingPolicy's row, field by field as the exceptions guide shows it.
    const generated = (await appRows()).find((r) => r.source === "KyvernoGeneratingPolicy");
    expect(generated).toMatchObject({
      policy: "companion",
      rule: "companion",
      result: "pass",
      message: "policy evaluated successfully",
      scored: true,
      properties: {
        "generated-resources": "/v1, Kind=ConfigMap Name=companion Namespace=celrows",
        process: "admission review",
      },
    });
    await first.stop();

    // A new controller has no admission results in memory: it scans again and keeps the admission rows.
    const second = controllerFor(client);
    await second.start();
    await eventually(() => idle(second), 15_000, "second scan");
    expect(await rows()).toEqual([...admissionRows, failing].sort());
    // A change the scan answers rewrites the report: the admission rows are still in it.
    await put(client, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "app", namespace: "celrows", labels: { team: "a" }, annotations: { stamped: "yes" } },
      data: { a: "1" },
    } as KubeObject);
    const passing = "KyvernoValidatingPolicy scan-team/=pass (background scan): success";
    await eventually(async () => (await rows()).includes(passing), 15_000, "rescan");
    expect(await rows()).toEqual([...admissionRows, passing].sort());
    await second.stop();
  });
});
