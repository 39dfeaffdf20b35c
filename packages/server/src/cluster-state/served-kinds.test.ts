import type { ApiResourceInfo, ApiResult, KubeClient } from "@kyverno-ts/kube";
import { describe, expect, it } from "vitest";
import { until } from "../testing/cluster.js";
import { recordingLogger } from "../testing/fixtures.js";
import { createServedKinds } from "./served-kinds.js";

const API = "policies.kyverno.io/v1";

/** Discovery that serves the kinds in `served` (mutable: a CRD installed later), counting lookups. */
function fakeDiscovery(served: Set<string>, unreachable = new Set<string>()) {
  const calls: string[] = [];
  const client = {
    async resource(apiVersion: string, kind: string): Promise<ApiResult<ApiResourceInfo>> {
      calls.push(kind);
      if (unreachable.has(kind))
        return { ok: false, status: 0, reason: "Unreachable", message: "connection refused" };
      return served.has(kind)
        ? {
            ok: true,
            status: 200,
            value: {
              apiVersion,
              kind,
              name: `${kind.toLowerCase()}s`,
              namespaced: false,
              verbs: ["list", "watch"],
            },
          }
        : { ok: false, status: 404, reason: "UnknownKind", message: `the server does not serve ${kind}` };
    },
  } as unknown as KubeClient;
  return { client, calls };
}

describe("createServedKinds", () => {
  it("hands over the kinds discovery serves at start, and warns about none", async () => {
    const { client } = fakeDiscovery(new Set(["ValidatingPolicy", "MutatingPolicy"]));
    const logger = recordingLogger();
    const served: Array<[string, boolean]> = [];
    const kinds = createServedKinds({
      client,
      apiVersion: API,
      kinds: ["ValidatingPolicy", "MutatingPolicy"],
      logger,
      onServed: (kind, later) => served.push([kind, later]),
    });
    await kinds.start();
    kinds.stop();
    expect(served).toEqual([
      ["ValidatingPolicy", false],
      ["MutatingPolicy", false],
    ]);
    expect(kinds.missing()).toEqual([]);
    expect(logger.lines.filter((l) => l.level === "warn")).toEqual([]);
  });

  it("picks up a kind whose CRD is installed after start, once, and says which kinds it waits for", async () => {
    const crds = new Set(["ValidatingPolicy"]);
    const { client } = fakeDiscovery(crds);
    const logger = recordingLogger();
    const served: Array<[string, boolean]> = [];
    const kinds = createServedKinds({
      client,
      apiVersion: API,
      kinds: ["ValidatingPolicy", "MutatingPolicy", "DeletingPolicy"],
      logger,
      onServed: (kind, later) => served.push([kind, later]),
      delay: () => 1,
    });
    await kinds.start();
    expect(served).toEqual([["ValidatingPolicy", false]]);
    expect(kinds.missing()).toEqual(["MutatingPolicy", "DeletingPolicy"]);
    const warnings = logger.lines.filter((l) => l.level === "warn");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.fields).toEqual({ apiVersion: API, kinds: ["MutatingPolicy", "DeletingPolicy"] });
    expect(warnings[0]?.message).toMatch(/CRDs not installed/);

    crds.add("MutatingPolicy");
    await until(() => served.length === 2, 5_000, "MutatingPolicy picked up");
    crds.add("DeletingPolicy");
    await until(() => served.length === 3, 5_000, "DeletingPolicy picked up");
    kinds.stop();
    expect(served).toEqual([
      ["ValidatingPolicy", false],
      ["MutatingPolicy", true],
      ["DeletingPolicy", true],
    ]);
    expect(kinds.missing()).toEqual([]);
  });

  it("stops looking when stopped", async () => {
    const { client, calls } = fakeDiscovery(new Set());
    const kinds = createServedKinds({
      client,
      apiVersion: API,
      kinds: ["ValidatingPolicy"],
      logger: recordingLogger(),
      onServed: () => undefined,
      delay: () => 1,
    });
    await kinds.start();
    await until(() => calls.length >= 3, 5_000, "a few looks");
    kinds.stop();
    await new Promise((r) => setTimeout(r, 20));
    const after = calls.length;
    await new Promise((r) => setTimeout(r, 50));
    expect(calls.length).toBe(after);
  });

  it("hands over a kind discovery could not be asked about (its informer retries), without waiting for it", async () => {
    const { client } = fakeDiscovery(new Set(), new Set(["ValidatingPolicy"]));
    const served: Array<[string, boolean]> = [];
    const kinds = createServedKinds({
      client,
      apiVersion: API,
      kinds: ["ValidatingPolicy"],
      logger: recordingLogger(),
      onServed: (kind, later) => served.push([kind, later]),
    });
    await kinds.start();
    kinds.stop();
    expect(served).toEqual([["ValidatingPolicy", false]]);
  });
});
