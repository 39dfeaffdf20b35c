/**
 * A mutate-existing UpdateRequest whose target changes between the read and the write, against the
 * sandbox API server: the write carries the target's resourceVersion, the API server answers 409,
 * and the rule is evaluated again on the newer target (the concurrent change is kept, the patch is
 * applied). A target that changes before every write fails the UpdateRequest after the attempts, for
 * the controller's retries with backoff.
 */
import { type KubeObject, loadPolicy, type Policy } from "@kyverno-ts/api";
import { createEngine } from "@kyverno-ts/engine";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScanContext } from "../../external-data/scan-context.js";
import { silentLogger } from "../../logger.js";
import { createPolicyCache } from "../../policycache/policy-cache.js";
import { read } from "../../testing/cluster.js";
import { fakeClock } from "../../testing/fixtures.js";
import { processUpdateRequest } from "./process.js";
import { updateRequestFor } from "./update-request.js";

const POLICY = {
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name: "stamp" },
  spec: {
    rules: [
      {
        name: "stamp-target",
        match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
        mutate: {
          targets: [{ apiVersion: "v1", kind: "Secret", namespace: "apps", name: "target" }],
          patchStrategicMerge: { metadata: { labels: { stamped: "{{request.object.metadata.name}}" } } },
        },
      },
    ],
  },
};

describe("mutate-existing writes meeting a conflict", () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  beforeAll(async () => {
    sandbox = await startSandbox({});
    client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
    await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "apps" } });
    await client.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "trigger", namespace: "apps" },
      data: { a: "b" },
    });
  }, 30_000);
  afterAll(async () => {
    client?.close();
    await sandbox?.stop();
  });

  /** The processor's client: before each of the first `changes` Secret writes, someone else edits it. */
  const racingClient = (changes: number) => {
    let writes = 0;
    const racing = Object.create(client) as KubeClient;
    racing.update = async (object, opts) => {
      if (object.kind === "Secret" && writes++ < changes) {
        const bumped = await client.patch(
          { apiVersion: "v1", kind: "Secret", namespace: "apps", name: "target" },
          { type: "merge", patch: { metadata: { labels: { [`edit-${writes}`]: "x" } } } },
        );
        if (!bumped.ok) throw new Error(bumped.message);
      }
      return client.update(object, opts);
    };
    return { client: racing, writes: () => writes };
  };

  const process = async (processorClient: KubeClient) => {
    const clock = fakeClock(0, new Date());
    const scan = createScanContext({ client: processorClient, monotonic: () => clock.monotonic() });
    const engine = createEngine({ clock, contextLoader: scan.loader });
    const cache = createPolicyCache({ engine });
    const loaded = loadPolicy(POLICY, { file: "stamp.yaml" });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
    expect(cache.set(loaded.value as Policy).ready).toBe(true);
    const ur = updateRequestFor(
      {
        requestType: "mutate",
        policy: "stamp",
        rules: ["stamp-target"],
        deleteDownstream: false,
        trigger: { apiVersion: "v1", kind: "ConfigMap", namespace: "apps", name: "trigger", uid: "" },
        operation: "CREATE",
      },
      "kyverno",
    );
    const deps = {
      client: processorClient,
      cache,
      engine,
      scan,
      logger: silentLogger(),
      namespaceLabels: () => undefined,
      user: "system:serviceaccount:kyverno:kyverno-background-controller",
    };
    return processUpdateRequest(deps, ur, new AbortController().signal);
  };

  const target = async () =>
    (await read(client, { apiVersion: "v1", kind: "Secret", namespace: "apps", name: "target" })) as
      | KubeObject
      | undefined;

  it("evaluates again on the newer target after a 409 and keeps the other writer's change", async () => {
    await client.create({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "target", namespace: "apps" },
    });
    const racing = racingClient(2);
    const outcome = await process(racing.client);
    expect(outcome.state).toBe("Completed");
    // Two writes met a conflict, the third went through.
    expect(racing.writes()).toBe(3);
    expect((await target())?.metadata?.labels).toEqual({ "edit-1": "x", "edit-2": "x", stamped: "trigger" });
  });

  it("fails the UpdateRequest (for the controller's retries) when the target keeps changing", async () => {
    await client.delete({ apiVersion: "v1", kind: "Secret", namespace: "apps", name: "target" });
    await client.create({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "target", namespace: "apps" },
    });
    const racing = racingClient(Number.POSITIVE_INFINITY);
    const outcome = await process(racing.client);
    expect(outcome).toMatchObject({ state: "Failed", forbidden: false });
    expect(outcome.message).toContain("the targets kept changing: 5 attempts met a conflict");
    expect((await target())?.metadata?.labels?.stamped).toBeUndefined();
  });
});
