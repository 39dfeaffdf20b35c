/**
 * End to end against the sandbox: CEL ValidatingPolicies in the reports controller — background
 * scans (`evaluation.background`) into PolicyReports with upstream's source, rule and process, autogen
 * on Pod controllers, and admission results handed over in an ephemeral report merged for a policy
 * whose background scans are off.
 */
import type { KubeObject } from "@kyverno-ts/api";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ephemeralReportOf } from "../../../reports/ephemeral-reports.js";
import { createReportsMetrics } from "../metrics.js";
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
import type { ReportsController } from "../types.js";

const validatingPolicy = (name: string, label: string, background: boolean) => ({
  apiVersion: "policies.kyverno.io/v1",
  kind: "ValidatingPolicy",
  metadata: { name },
  spec: {
    validationActions: ["Audit"],
    evaluation: { background: { enabled: background } },
    matchConstraints: {
      resourceRules: [
        { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] },
      ],
    },
    validations: [
      {
        expression: `has(object.metadata.labels) && '${label}' in object.metadata.labels`,
        message: `the label ${label} is required`,
      },
    ],
  },
});

const outcomes = async (client: KubeClient, ns: string) =>
  (await allReports(client))
    .filter((r) => r.metadata.namespace === ns)
    .flatMap((r) =>
      (r.results ?? []).map(
        (x) =>
          `${r.scope?.kind}/${r.scope?.name} ${x.source} ${x.policy}/${x.rule}=${x.result} (${x.properties?.process}): ${x.message}`,
      ),
    )
    .sort();

describe("CEL ValidatingPolicies in the reports controller (sandbox)", { timeout: 60_000 }, () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  let controller: ReportsController | undefined;
  const metrics = createReportsMetrics();
  beforeAll(async () => {
    sandbox = await startSandbox({
      crds: [
        ...REPORT_CRDS,
        `${CRDS}reports/reports.kyverno.io_ephemeralreports.yaml`,
        `${CRDS}reports/reports.kyverno.io_clusterephemeralreports.yaml`,
        `${CRDS}policies.kyverno.io/policies.kyverno.io_validatingpolicies.yaml`,
      ],
      admission: false,
    });
    client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
  }, 60_000);
  afterAll(async () => {
    await controller?.stop();
    client?.close();
    await sandbox?.stop();
  });

  it("scans in the background into PolicyReports, Pod controllers included (autogen)", async () => {
    await put(client, namespace("shop"));
    await put(client, pod("cart", "shop"));
    await put(client, pod("labelled", "shop", { labels: { team: "shop" } }));
    await put(client, {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "shop" },
      spec: {
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: { containers: [{ name: "a", image: "nginx" }] },
        },
      },
    });
    await put(client, validatingPolicy("require-team", "team", true));
    controller = controllerFor(client, { ephemeralReports: true, metrics });
    await controller.start();
    await eventually(
      async () => idle(controller as ReportsController) && (await outcomes(client, "shop")).length === 3,
      30_000,
      "the scan",
    );
    expect(await outcomes(client, "shop")).toEqual([
      "Deployment/web KyvernoValidatingPolicy require-team/=fail (background scan): the label team is required",
      "Pod/cart KyvernoValidatingPolicy require-team/=fail (background scan): the label team is required",
      "Pod/labelled KyvernoValidatingPolicy require-team/=pass (background scan): success",
    ]);
    expect(await metrics.render()).toContain(
      'kyverno_validating_policy_execution_duration_seconds_count{policy_background_mode="true",policy_name="require-team",policy_validation_mode="audit",resource_kind="Pod",resource_namespace="shop",resource_request_operation="create",execution_cause="background_scan",result="FAIL"} 1',
    );
  });

  it("merges the admission results of a policy not scanned in the background, from an ephemeral report", async () => {
    await put(client, validatingPolicy("admission-only", "owner", false));
    const cart = await client.get<KubeObject>({
      apiVersion: "v1",
      kind: "Pod",
      namespace: "shop",
      name: "cart",
    });
    if (!cart.ok) throw new Error(cart.message);
    const uid = String(cart.value.metadata?.uid);
    // What the admission controller publishes for a request the policy audited.
    await put(
      client,
      ephemeralReportOf({
        uid: "request-1",
        timestamp: 1_000,
        operation: "CREATE",
        resource: { apiVersion: "v1", kind: "Pod", namespace: "shop", name: "cart", uid },
        responses: [
          {
            policy: { kind: "ValidatingPolicy", name: "admission-only" },
            resource: { apiVersion: "v1", kind: "Pod", namespace: "shop", name: "cart", uid },
            rules: [
              {
                name: "",
                type: "Validation",
                status: "fail",
                message: "the label owner is required",
                failureAction: "Audit",
              },
            ],
            background: false,
            timestamp: 1_000,
          },
        ],
      }) as unknown as KubeObject,
    );
    await eventually(
      async () => (await outcomes(client, "shop")).some((o) => o.includes("admission-only")),
      20_000,
      "the merged admission result",
    );
    expect((await outcomes(client, "shop")).filter((o) => o.startsWith("Pod/cart"))).toEqual([
      "Pod/cart KyvernoValidatingPolicy admission-only/=fail (admission review): the label owner is required",
      "Pod/cart KyvernoValidatingPolicy require-team/=fail (background scan): the label team is required",
    ]);
  });
});
