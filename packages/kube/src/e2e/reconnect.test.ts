/**
 * After an API server outage an informer comes back as soon as the server answers again, not when its
 * reconnect backoff (up to 30 s) happens to end: the client's recovery probe wakes it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KubeObject } from "@kyverno-ts/api";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { afterAll, describe, expect, it } from "vitest";
import { createInformer, createKubeClient, type InformerError } from "../index.js";
import { until } from "../testing/sandbox.js";

describe("reconnecting after an API server outage", () => {
  const dir = mkdtempSync(join(tmpdir(), "kyverno-ts-reconnect-"));
  let sandbox: Sandbox | undefined;
  afterAll(async () => {
    await sandbox?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("relists at once when the server answers again, though its backoff is a minute", async () => {
    sandbox = await startSandbox({ dataDir: join(dir, "state") });
    const port = Number(new URL(sandbox.url).port);
    const client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0, recoveryProbeMs: 100 });
    const errors: InformerError[] = [];
    const informer = createInformer<KubeObject>({
      client,
      apiVersion: "v1",
      kind: "ConfigMap",
      namespace: "default",
      // A backoff far longer than this test may take: only the recovery probe can bring it back.
      delay: () => 60_000,
    });
    informer.on("error", (e) => errors.push(e));
    await informer.start();
    await sandbox.stop();
    await until(() => errors.length > 0, 10_000, "the informer noticed the outage");
    sandbox = await startSandbox({ dataDir: join(dir, "state"), port });
    await client.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "after-outage", namespace: "default" },
      data: {},
    });
    await until(
      () => informer.get("default", "after-outage") !== undefined,
      15_000,
      "relisted after the outage",
    );
    expect(errors.every((e) => e.source !== "handler")).toBe(true);
    await informer.stop();
    client.close();
  }, 40_000);
});
