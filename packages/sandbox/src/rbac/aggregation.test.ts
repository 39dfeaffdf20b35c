import type { JsonObject } from "@kyverno-ts/api";
import { afterEach, describe, expect, it } from "vitest";
import { createWorkQueue } from "../gc/work-queue.js";
import { createRegistry } from "../registry/registry.js";
import { createStore } from "../store/store.js";
import type { ApiEnv } from "../verbs/context.js";
import { startAggregationController } from "./aggregation.js";
import { bootstrapRbacObjects } from "./bootstrap.js";

const KEY = "rbac.authorization.k8s.io/clusterroles";

function env(): ApiEnv {
  let uid = 0;
  return {
    store: createStore(),
    registry: createRegistry(),
    admission: undefined,
    now: () => new Date("2025-01-01T00:00:00Z"),
    newUid: () => `uid-${uid++}`,
    nameSuffix: () => "abcde",
    bookmarkIntervalMs: 60000,
    watches: new Set(),
  };
}

const role = (name: string, labels: Record<string, string>, rules: JsonObject[]): JsonObject => ({
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind: "ClusterRole",
  metadata: { name, labels },
  rules,
});
const rulesOf = (e: ApiEnv, name: string) => e.store.get(KEY, "", name)?.rules;

describe("ClusterRole aggregation controller", () => {
  const stops: Array<() => void> = [];
  afterEach(() => {
    for (const stop of stops.splice(0)) stop();
  });

  it("fills admin, edit and view from the labelled roles, transitively", async () => {
    const e = env();
    for (const object of bootstrapRbacObjects())
      if (object.kind === "ClusterRole") e.store.create(KEY, object);
    const queue = createWorkQueue();
    stops.push(startAggregationController(e, queue), () => queue.stop());
    await queue.idle();
    const view = JSON.stringify(rulesOf(e, "view"));
    const edit = JSON.stringify(rulesOf(e, "edit"));
    const admin = JSON.stringify(rulesOf(e, "admin"));
    expect(view).toContain('"deployments/scale"');
    expect(edit).toContain('"serviceaccounts/token"');
    expect(edit).toContain('"deployments/scale"');
    expect(admin).toContain('"rolebindings"');
    expect(admin).toContain('"serviceaccounts/token"');
    expect(admin).toContain('"endpointslices"');
    expect(view).not.toContain('"secrets"');
  });

  it("follows labelled roles being created, changed and deleted, without duplicate rules", async () => {
    const e = env();
    e.store.create(KEY, {
      ...role("monitoring", {}, []),
      aggregationRule: {
        clusterRoleSelectors: [{ matchLabels: { "example.com/aggregate-to-monitoring": "true" } }],
      },
    });
    const queue = createWorkQueue();
    stops.push(startAggregationController(e, queue), () => queue.stop());
    const read = { verbs: ["get"], apiGroups: [""], resources: ["pods"] };
    e.store.create(KEY, role("a", { "example.com/aggregate-to-monitoring": "true" }, [read]));
    e.store.create(
      KEY,
      role("b", { "example.com/aggregate-to-monitoring": "true" }, [
        read,
        { ...read, resources: ["services"] },
      ]),
    );
    e.store.create(KEY, role("c", { other: "true" }, [{ ...read, resources: ["secrets"] }]));
    await queue.idle();
    expect(rulesOf(e, "monitoring")).toEqual([read, { ...read, resources: ["services"] }]);
    const b = e.store.get(KEY, "", "b") as JsonObject;
    e.store.update(KEY, { ...b, metadata: { name: "b", labels: {} } });
    await queue.idle();
    expect(rulesOf(e, "monitoring")).toEqual([read]);
    e.store.remove(KEY, "", "a");
    await queue.idle();
    expect(rulesOf(e, "monitoring")).toEqual([]);
  });
});
