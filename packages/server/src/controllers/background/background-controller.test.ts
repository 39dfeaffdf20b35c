/**
 * The background controller against the sandbox API server: a processed UpdateRequest has its outcome
 * (`Completed`, or `Skip` when there is nothing to do) written on its status, with the message and for
 * generate the resources written, so a watcher (`kubectl get ur -w`) sees it; a Completed one is then
 * deleted, a Skip one kept (as upstream).
 */
import { fileURLToPath } from "node:url";
import type { KubeObject } from "@kyverno-ts/api";
import { createEngine } from "@kyverno-ts/engine";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../clock.js";
import { silentLogger } from "../../logger.js";
import { KYVERNO_CRDS, read, until } from "../../testing/cluster.js";
import { type BackgroundController, createBackgroundController } from "./background-controller.js";
import {
  type UpdateRequest,
  type UpdateRequestIntent,
  UR_API_VERSION,
  UR_KIND,
  updateRequestFor,
} from "./update-request.js";

const UR_CRD = fileURLToPath(
  new URL(
    "../../../../../../shared/reference/kyverno-crds/kyverno/kyverno.io_updaterequests.yaml",
    import.meta.url,
  ),
);

const POLICY = {
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name: "gen" },
  spec: {
    rules: [
      {
        name: "copy",
        match: { any: [{ resources: { kinds: ["ConfigMap"], namespaces: ["apps"] } }] },
        generate: {
          apiVersion: "v1",
          kind: "ConfigMap",
          name: "copy-{{request.object.metadata.name}}",
          namespace: "apps",
          data: { data: { from: "{{request.object.metadata.name}}" } },
        },
      },
    ],
  },
};

describe("the background controller's UpdateRequest statuses", () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  let controller: BackgroundController;
  let trigger: KubeObject;
  /** Every watch event on UpdateRequests: type, name and the state it carried. */
  const seen: Array<{ type: string; name: string; state?: string; status?: UpdateRequest["status"] }> = [];
  let stopWatch: (() => void) | undefined;

  beforeAll(async () => {
    sandbox = await startSandbox({ crds: [...KYVERNO_CRDS, UR_CRD] });
    client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
    for (const name of ["kyverno", "apps"])
      await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
    const created = await client.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "source", namespace: "apps" },
      data: { a: "b" },
    });
    if (!created.ok) throw new Error(created.message);
    trigger = created.value;
    await client.create(POLICY as unknown as KubeObject);
    const watch = await client.watch<KubeObject>(
      { apiVersion: UR_API_VERSION, kind: UR_KIND, namespace: "kyverno" },
      (event) => {
        if (event.type === "ERROR" || event.type === "BOOKMARK") return;
        const ur = event.object as unknown as UpdateRequest;
        seen.push({
          type: event.type,
          name: ur.metadata.name,
          ...(ur.status?.state ? { state: ur.status.state } : {}),
          ...(ur.status ? { status: ur.status } : {}),
        });
      },
    );
    if (!watch.ok) throw new Error(watch.message);
    stopWatch = () => watch.value.stop();
    controller = createBackgroundController({
      client,
      engine: createEngine(),
      namespace: "kyverno",
      workers: 2,
      exceptionNamespaces: [],
      leaderElection: false,
      user: "system:serviceaccount:kyverno:kyverno-background-controller",
      clock: systemClock(),
      logger: silentLogger(),
    });
    await controller.start();
    await until(() => controller.cache.get("gen") !== undefined, 10_000, "policy gen cached");
  }, 60_000);
  afterAll(async () => {
    stopWatch?.();
    await controller?.stop();
    client?.close();
    await sandbox?.stop();
  }, 30_000);

  const submit = async (policy: string): Promise<string> => {
    const intent: UpdateRequestIntent = {
      requestType: "generate",
      policy,
      trigger: {
        apiVersion: "v1",
        kind: "ConfigMap",
        namespace: "apps",
        name: "source",
        uid: String(trigger.metadata?.uid ?? ""),
      },
      rules: ["copy"],
      deleteDownstream: false,
      operation: "CREATE",
    };
    const ur = updateRequestFor(intent, "kyverno");
    const created = await client.create(ur as unknown as KubeObject);
    if (!created.ok) throw new Error(created.message);
    return ur.metadata.name;
  };
  const eventsOf = (name: string) => seen.filter((e) => e.name === name);
  const deleted = (name: string) => eventsOf(name).some((e) => e.type === "DELETED");

  it("writes Completed, its message and the generated resources, then deletes the UpdateRequest", async () => {
    const name = await submit("gen");
    await until(() => deleted(name), 15_000, `UpdateRequest ${name} deleted`);
    expect(
      await read(client, { apiVersion: "v1", kind: "ConfigMap", namespace: "apps", name: "copy-source" }),
    ).toBeDefined();
    const events = eventsOf(name);
    // Created, set Pending, the outcome written, deleted: one status write more than before, no other.
    expect(events.map((e) => [e.type, e.state])).toEqual([
      ["ADDED", undefined],
      ["MODIFIED", "Pending"],
      ["MODIFIED", "Completed"],
      ["DELETED", "Completed"],
    ]);
    expect(events[2]?.status).toEqual({
      state: "Completed",
      message: "1 resource(s) generated",
      generatedResources: [{ apiVersion: "v1", kind: "ConfigMap", namespace: "apps", name: "copy-source" }],
    });
  }, 30_000);

  it("writes Skip with its message when there is nothing to do (the policy is gone) and keeps it, as upstream", async () => {
    const name = await submit("no-such-policy");
    await until(() => eventsOf(name).some((e) => e.state === "Skip"), 15_000, `UpdateRequest ${name} Skip`);
    // An UpdateRequest processed after it is Completed and deleted; the Skip one is still there.
    const later = await submit("gen");
    await until(() => deleted(later), 15_000, `UpdateRequest ${later} deleted`);
    const events = eventsOf(name);
    expect(events.map((e) => [e.type, e.state])).toEqual([
      ["ADDED", undefined],
      ["MODIFIED", "Pending"],
      ["MODIFIED", "Skip"],
    ]);
    expect(events[2]?.status).toEqual({ state: "Skip", message: "policy no-such-policy not found" });
    const kept = await read(client, {
      apiVersion: UR_API_VERSION,
      kind: UR_KIND,
      namespace: "kyverno",
      name,
    });
    expect(kept?.status).toEqual({ state: "Skip", message: "policy no-such-policy not found" });
  }, 30_000);
});
