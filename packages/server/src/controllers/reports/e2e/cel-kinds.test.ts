/**
 * End to end against the sandbox: the reports controller's cluster state watches the
 * `policies.kyverno.io` kinds whose results go into reports (validating, image validating, mutating,
 * generating) and not DeletingPolicies, whose CRDs are served here too.
 */
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPORTED_CEL_KINDS } from "../cel-reports.js";
import { CRDS, controllerFor, eventually, idle, REPORT_CRDS } from "../testing/harness.js";
import type { ReportsController } from "../types.js";

const CEL_CRDS = [
  "validatingpolicies",
  "imagevalidatingpolicies",
  "mutatingpolicies",
  "generatingpolicies",
  "deletingpolicies",
  "namespaceddeletingpolicies",
].map((plural) => `${CRDS}policies.kyverno.io/policies.kyverno.io_${plural}.yaml`);

/** A client that records the kinds it lists (an informer lists before it watches). */
function recordingLists(client: KubeClient): { client: KubeClient; listed: Set<string> } {
  const listed = new Set<string>();
  const recording = new Proxy(client, {
    get(target, property, receiver) {
      if (property === "list")
        return (query: { apiVersion: string; kind: string }, ...rest: unknown[]) => {
          listed.add(`${query.apiVersion} ${query.kind}`);
          return (target.list as (...args: unknown[]) => unknown)(query, ...rest);
        };
      return Reflect.get(target, property, receiver);
    },
  });
  return { client: recording, listed };
}

describe("the reports controller's CEL policy kinds (sandbox)", { timeout: 60_000 }, () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  let controller: ReportsController | undefined;
  beforeAll(async () => {
    sandbox = await startSandbox({ crds: [...REPORT_CRDS, ...CEL_CRDS], admission: false });
    client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
  }, 60_000);
  afterAll(async () => {
    await controller?.stop();
    client?.close();
    await sandbox?.stop();
  });

  it("reports on every CEL kind with a report source but DeletingPolicies", () => {
    expect([...REPORTED_CEL_KINDS].sort()).toEqual([
      "GeneratingPolicy",
      "ImageValidatingPolicy",
      "MutatingPolicy",
      "NamespacedGeneratingPolicy",
      "NamespacedImageValidatingPolicy",
      "NamespacedMutatingPolicy",
      "NamespacedValidatingPolicy",
      "ValidatingPolicy",
    ]);
  });

  it("watches the reported kinds whose CRDs are served, and not the DeletingPolicies'", async () => {
    const { client: recording, listed } = recordingLists(client);
    controller = controllerFor(recording);
    await controller.start();
    await eventually(() => idle(controller as ReportsController), 20_000, "first scan");
    const cel = [...listed].filter((k) => k.startsWith("policies.kyverno.io/v1 ")).sort();
    expect(cel).toEqual([
      "policies.kyverno.io/v1 GeneratingPolicy",
      "policies.kyverno.io/v1 ImageValidatingPolicy",
      "policies.kyverno.io/v1 MutatingPolicy",
      "policies.kyverno.io/v1 ValidatingPolicy",
    ]);
  });
});
