/**
 * The probe endpoints the Helm chart points Kubernetes at, on the real binaries' code paths against
 * the sandbox: the admission controller's webhook port (startup, liveness, readiness) and the reports
 * command's metrics port (startup, liveness, readiness).
 */
import { request } from "node:https";
import { createServer } from "node:net";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { afterEach, describe, expect, it } from "vitest";
import { runReportsCommand } from "../bin/reports.js";
import { systemClock } from "../clock.js";
import { startClusterAdmission } from "../controllers/admission/cluster/cluster-admission.js";
import {
  generateCertificateAuthority,
  issueServingCertificate,
} from "../controllers/certificates/certificates.js";
import { servingHosts, tlsSecret, tlsSecretNames } from "../controllers/certificates/tls-secrets.js";
import { startCluster } from "../controllers/reports/testing/harness.js";
import { KYVERNO_CRDS } from "../testing/cluster.js";
import { recordingLogger } from "../testing/fixtures.js";

/** A port nothing listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** The status of an HTTPS GET, or the connection error's code (`ECONNREFUSED`). */
function httpsStatus(port: number, path: string, ca?: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(
      { host: "127.0.0.1", port, path, ca, rejectUnauthorized: ca !== undefined, agent: false },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}

const plainStatus = (port: number, path: string): Promise<number | string> =>
  fetch(`http://127.0.0.1:${port}${path}`).then(
    (r) => r.status,
    (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.message,
  );

describe("probe endpoints of the controllers", { timeout: 60_000 }, () => {
  let sandbox: Sandbox | undefined;
  let client: KubeClient | undefined;
  afterEach(async () => {
    client?.close();
    await sandbox?.stop();
    sandbox = undefined;
    client = undefined;
  });

  it("admission: no probe answers until the serving certificate exists; then live and ready; gone once closed", async () => {
    sandbox = await startSandbox({ crds: KYVERNO_CRDS });
    client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
    await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "kyverno" } });
    // Another replica leads (for an hour): this one waits for the certificate that leader creates.
    const now = new Date().toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
    await client.create({
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "kyverno", namespace: "kyverno" },
      spec: { holderIdentity: "replica-a", leaseDurationSeconds: 3600, acquireTime: now, renewTime: now },
    });
    const port = await freePort();
    const starting = startClusterAdmission({
      kube: { kubeconfigPath: sandbox.kubeconfigPath, qps: 0 },
      namespace: "kyverno",
      serviceName: "kyverno-svc",
      policyExceptions: { enabled: false },
      identity: "replica-b",
      leaderElection: {},
      host: "127.0.0.1",
      port,
      clock: systemClock(),
      logger: recordingLogger(),
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await httpsStatus(port, "/health/liveness")).toBe("ECONNREFUSED");

    // The leader stores the CA and the serving pair.
    const clock = { now: () => Date.now() };
    const ca = await generateCertificateAuthority({ clock });
    const pair = await issueServingCertificate({
      ca,
      hosts: servingHosts("kyverno-svc", "kyverno", ["127.0.0.1"]),
      clock,
    });
    const names = tlsSecretNames("kyverno-svc", "kyverno");
    await client.create(tlsSecret(names.ca, "kyverno", ca));
    await client.create(tlsSecret(names.pair, "kyverno", pair));
    const admission = await starting;
    expect(admission.port).toBe(port);
    expect(await httpsStatus(port, "/health/liveness", ca.certPem)).toBe(200);
    expect(await httpsStatus(port, "/health/readiness", ca.certPem)).toBe(200);
    expect(admission.isLeader()).toBe(false);
    await admission.close();
    expect(await httpsStatus(port, "/health/readiness", ca.certPem)).toBe("ECONNREFUSED");
  });

  it("reports: liveness and readiness on the metrics port while it runs, none once stopped", async () => {
    const cluster = await startCluster();
    sandbox = cluster.sandbox;
    client = cluster.client;
    const stop = new AbortController();
    const output = { write: () => true };
    let metricsPort = 0;
    const exit = runReportsCommand({
      args: ["--kubeconfig", sandbox.kubeconfigPath, "--metrics-port", "0", "--namespace", "default"],
      stdout: output,
      stderr: output,
      signal: stop.signal,
      onReady: (info) => {
        metricsPort = info.metricsPort;
      },
    });
    const start = Date.now();
    while (metricsPort === 0 && Date.now() - start < 20_000) await new Promise((r) => setTimeout(r, 25));
    expect(await plainStatus(metricsPort, "/health/liveness")).toBe(200);
    expect(await plainStatus(metricsPort, "/health/readiness")).toBe(200);
    stop.abort();
    expect(await exit).toBe(0);
    expect(await plainStatus(metricsPort, "/health/liveness")).toBe("ECONNREFUSED");
  });
});
