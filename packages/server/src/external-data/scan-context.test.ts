import type { KubeClient } from "@kyverno-ts/kube";
import { describe, expect, it } from "vitest";
import { createScanContext } from "./scan-context.js";

/** A client whose only ConfigMap is `team/settings`; counts the reads. */
function configMaps() {
  const reads: string[] = [];
  const client = {
    async get(ref: { namespace?: string; name: string }) {
      reads.push(`${ref.namespace}/${ref.name}`);
      return ref.name === "settings"
        ? {
            ok: true,
            status: 200,
            value: { apiVersion: "v1", kind: "ConfigMap", metadata: ref, data: { tier: "gold" } },
          }
        : { ok: false, status: 404, reason: "NotFound", message: "not found" };
    },
  } as unknown as KubeClient;
  return { client, reads };
}

describe("scan context evaluateNow", () => {
  const signal = new AbortController().signal;

  it("answers at once an evaluation that reads nothing it has not fetched", () => {
    const { client, reads } = configMaps();
    const context = createScanContext({ client, monotonic: () => 0 });
    let rounds = 0;
    expect(context.evaluateNow(() => ++rounds, signal)).toEqual({ value: 1 });
    expect(reads).toEqual([]);
  });

  it("fetches what the first round missed and evaluates again, as evaluate does; then answers at once", async () => {
    const { client, reads } = configMaps();
    const context = createScanContext({ client, monotonic: () => 0 });
    const read = () => context.loader.configMap?.("team", "settings");
    const first = context.evaluateNow(read, signal);
    expect("later" in first).toBe(true);
    const fetched = await (first as { later: Promise<unknown> }).later;
    expect(fetched).toMatchObject({ ok: true, value: { data: { tier: "gold" } } });
    expect(context.evaluateNow(read, signal)).toEqual({ value: fetched });
    expect(await context.evaluate(read, signal)).toEqual(fetched);
    expect(reads).toEqual(["team/settings"]);
  });

  it("gives the first round's value when it may not fetch (one round only, or aborted)", async () => {
    const { client, reads } = configMaps();
    const read = (context: ReturnType<typeof createScanContext>) => () =>
      context.loader.configMap?.("team", "settings");
    const oneRound = createScanContext({ client, monotonic: () => 0, maxRounds: 1 });
    expect(oneRound.evaluateNow(read(oneRound), signal)).toEqual({
      value: { ok: false, error: "configMap team/settings not loaded yet" },
    });
    const stopped = new AbortController();
    stopped.abort();
    const context = createScanContext({ client, monotonic: () => 0 });
    expect(context.evaluateNow(read(context), stopped.signal)).toEqual({
      value: { ok: false, error: "configMap team/settings not loaded yet" },
    });
    expect(reads).toEqual([]);
  });
});
