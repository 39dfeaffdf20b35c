/**
 * Closing the webhook server while the API server still talks to it (a Pod being replaced during
 * `helm upgrade`): reviews already on their way are answered, not refused, and each answer closes
 * its connection so the next review goes to a replica that stays.
 */
import { request } from "node:https";
import { connect, type TLSSocket } from "node:tls";
import { createEngine } from "@kyverno-ts/engine";
import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../clock.js";
import { defaultKyvernoConfig } from "../controllers/admission/filters.js";
import { createAdmissionHandler } from "../controllers/admission/handler.js";
import { createPolicyValidation } from "../controllers/admission/policy-validation.js";
import { type CertificateBundle, generateCertificates } from "../controllers/certificates/certificates.js";
import { createAdmissionMetrics } from "../metrics/metrics.js";
import { createPolicyCache } from "../policycache/policy-cache.js";
import { pod, podValidatePolicy, recordingLogger, review } from "../testing/fixtures.js";
import { createWebhookServer, type WebhookServer } from "./server.js";

async function startServer(): Promise<{ server: WebhookServer; port: number; certs: CertificateBundle }> {
  const clock = systemClock();
  const certs = await generateCertificates({ hosts: ["127.0.0.1"], clock });
  const engine = createEngine({ clock: clock });
  const metrics = createAdmissionMetrics({ version: "test" });
  const cache = createPolicyCache({ engine, metrics });
  cache.set(podValidatePolicy({ name: "disallow-privileged" }));
  const logger = recordingLogger();
  const handler = createAdmissionHandler({
    engine,
    policyCache: cache,
    clock,
    logger,
    metrics,
    config: defaultKyvernoConfig(),
  });
  const server = createWebhookServer({
    handler,
    validation: createPolicyValidation({ engine, exceptions: { enabled: false } }),
    clock,
    logger,
    metrics,
    tls: { certPem: certs.serving.certPem, keyPem: certs.serving.keyPem },
  });
  const { port } = await server.listen({ host: "127.0.0.1", port: 0 });
  return { server, port, certs };
}

/** One HTTP/1.1 response read off a raw socket: status, headers (lower-cased), body. */
function readResponse(
  socket: TLSSocket,
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    let data = "";
    const onData = (chunk: Buffer): void => {
      data += chunk.toString();
      const end = data.indexOf("\r\n\r\n");
      if (end < 0) return;
      const [statusLine = "", ...lines] = data.slice(0, end).split("\r\n");
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]),
      );
      const length = Number(headers["content-length"] ?? 0);
      const body = data.slice(end + 4);
      if (Buffer.byteLength(body) < length) return;
      socket.off("data", onData);
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body });
    };
    socket.on("data", onData);
    socket.once("error", reject);
  });
}

function liveness(port: number, ca: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/health/liveness", ca, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("webhook server shutdown", () => {
  let server: WebhookServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("answers a review in flight when closing starts, then closes that connection", async () => {
    const started = await startServer();
    server = started.server;
    const { port, certs } = started;
    const socket = connect({ host: "127.0.0.1", port, ca: certs.ca.certPem });
    await new Promise<void>((resolve, reject) => {
      socket.once("secureConnect", () => resolve());
      socket.once("error", reject);
    });
    const body = JSON.stringify(review({ object: pod({ privileged: true }) }));
    const half = Math.floor(body.length / 2);
    const head =
      "POST /validate/fail HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n" +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: keep-alive\r\n\r\n`;
    socket.write(head + body.slice(0, half));
    // Another connection's answer proves the server has read the first request's head.
    expect(await liveness(port, certs.ca.certPem)).toBe(200);

    const closed = server.close();
    const ended = new Promise<void>((resolve) => socket.once("end", () => resolve()));
    const answer = readResponse(socket);
    socket.write(body.slice(half));
    const response = await answer;
    expect(response.status).toBe(200);
    expect(response.headers.connection).toBe("close");
    expect(JSON.parse(response.body).response.allowed).toBe(false);
    await ended;
    await closed;
    server = undefined;
    await expect(liveness(port, certs.ca.certPem)).rejects.toThrow(/ECONNREFUSED/);
    socket.destroy();
  });
});
