import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as k8s from "@kubernetes/client-node";
import { afterAll, describe, expect, it } from "vitest";
import { startSandbox } from "../index.js";

const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8);

describe("a restart with a data directory", () => {
  const dir = mkdtempSync(join(tmpdir(), "sandbox-restart-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps the CA, the users' tokens and issued service account tokens, so clients reconnect", async () => {
    const first = await startSandbox({ dataDir: dir });
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(first.kubeconfigPath);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedServiceAccount({ namespace: "default", body: { metadata: { name: "bot" } } });
    const request = await core.createNamespacedServiceAccountToken({
      namespace: "default",
      name: "bot",
      body: { spec: { audiences: [], expirationSeconds: 3600 } },
    });
    const saToken = request.status?.token ?? "";
    const port = Number(new URL(first.url).port);
    await first.stop();

    const second = await startSandbox({ dataDir: dir, port });
    expect(second.caCertPem).toBe(first.caCertPem);
    expect(second.users).toEqual(first.users);
    // The client built against the first run (its CA, its token) still works.
    expect((await core.readNamespace({ name: "default" })).metadata?.name).toBe("default");
    const auth = kc.makeApiClient(k8s.AuthenticationV1Api);
    const review = await auth.createTokenReview({ body: { spec: { token: saToken } } });
    expect(review.status).toMatchObject({
      authenticated: true,
      user: { username: "system:serviceaccount:default:bot" },
    });
    await second.stop();
  });

  it("writes state files 0600 in a 0700 folder, also when older runs left them readable", async () => {
    const sandbox = await startSandbox({ dataDir: dir });
    await sandbox.stop();
    writeFileSync(join(dir, "writes.jsonl"), "", { mode: 0o644 });
    const again = await startSandbox({ dataDir: dir });
    await again.stop();
    expect(mode(dir)).toBe("700");
    const files = readdirSync(dir);
    expect(files).toEqual(
      expect.arrayContaining([
        "ca.crt",
        "ca.key",
        "sa.key",
        "tokens.json",
        "kubeconfig",
        "objects.json",
        "writes.jsonl",
      ]),
    );
    for (const file of files) expect([file, mode(join(dir, file))]).toEqual([file, "600"]);
  });

  it("names the file when a kept key is unusable", async () => {
    const broken = mkdtempSync(join(tmpdir(), "sandbox-broken-"));
    writeFileSync(join(broken, "sa.key"), "not a key");
    await expect(startSandbox({ dataDir: broken })).rejects.toThrow(
      `${join(broken, "sa.key")}: not a usable signing key`,
    );
    rmSync(broken, { recursive: true, force: true });
  });
});
