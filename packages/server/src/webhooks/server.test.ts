import { request } from "node:https";
import { createEngine } from "@kyverno-ts/engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../clock.js";
import { defaultKyvernoConfig } from "../controllers/admission/filters.js";
import { createAdmissionHandler } from "../controllers/admission/handler.js";
import { createPolicyValidation } from "../controllers/admission/policy-validation.js";
import { type CertificateBundle, generateCertificates } from "../controllers/certificates/certificates.js";
import { createAdmissionMetrics } from "../metrics/metrics.js";
import { createPolicyCache } from "../policycache/policy-cache.js";
import { pod, podValidatePolicy, recordingLogger, review } from "../testing/fixtures.js";
import { createMetricsServer, type MetricsServer } from "./metrics-server.js";
import { createWebhookServer, type WebhookServer } from "./server.js";

interface Answer {
  status: number;
  text: string;
}

function call(
  port: number,
  ca: string,
  method: string,
  path: string,
  body?: string | Buffer,
  contentType: string | null = "application/json",
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        ca,
        agent: false,
        headers: contentType === null ? {} : { "content-type": contentType },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

function plainGet(port: number, path: string): Promise<string> {
  return fetch(`http://127.0.0.1:${port}${path}`).then((r) => r.text());
}

describe("HTTPS webhook server", () => {
  const clock = systemClock();
  let certs: CertificateBundle;
  let server: WebhookServer;
  let metricsServer: MetricsServer;
  let port: number;
  let metricsPort: number;
  let ready = true;

  beforeAll(async () => {
    certs = await generateCertificates({ hosts: ["localhost", "127.0.0.1"], clock });
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
    server = createWebhookServer({
      handler,
      validation: createPolicyValidation({ engine, exceptions: { enabled: true } }),
      clock,
      logger,
      metrics,
      tls: { certPem: certs.serving.certPem, keyPem: certs.serving.keyPem },
      ready: () => ready,
    });
    port = (await server.listen({ host: "127.0.0.1", port: 0 })).port;
    metricsServer = createMetricsServer({ metrics });
    metricsPort = (await metricsServer.listen({ host: "127.0.0.1", port: 0 })).port;
  });

  afterAll(async () => {
    await server.close();
    await metricsServer.close();
  });

  it("answers AdmissionReviews over TLS on the failure-policy endpoints", async () => {
    const denied = await call(
      port,
      certs.ca.certPem,
      "POST",
      "/validate/fail",
      JSON.stringify(review({ object: pod({ privileged: true }) })),
    );
    expect(denied.status).toBe(200);
    const body = JSON.parse(denied.text);
    expect(body.response.allowed).toBe(false);
    expect(body.response.status.message).toContain(
      "resource Pod/default/x was blocked due to the following policies",
    );
    const allowed = await call(
      port,
      certs.ca.certPem,
      "POST",
      "/validate/ignore",
      JSON.stringify(review({ object: pod({ privileged: true }) })),
    );
    expect(JSON.parse(allowed.text).response.allowed).toBe(true);
    const mutate = await call(port, certs.ca.certPem, "POST", "/mutate/fail", JSON.stringify(review({})));
    expect(JSON.parse(mutate.text).response).toEqual({
      uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
      allowed: true,
    });
  });

  it("answers malformed and oversized bodies with a 400 or an AdmissionReview, never a hang", async () => {
    expect((await call(port, certs.ca.certPem, "POST", "/validate/fail", "{oops")).status).toBe(400);
    expect((await call(port, certs.ca.certPem, "POST", "/validate/fail")).status).toBe(400);
    const big = JSON.stringify(
      review({ object: { ...pod(), padding: "x".repeat(3 * 1024 * 1024) } as never }),
    );
    const answer = await call(port, certs.ca.certPem, "POST", "/validate/fail", big);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text).response).toMatchObject({
      allowed: false,
      status: { message: "request body exceeds the limit of 3145728 bytes" },
    });
  });

  it("answers 415 to anything but a JSON body, as upstream, without evaluating it", async () => {
    const privileged = JSON.stringify(review({ object: pod({ privileged: true }) }));
    for (const path of ["/validate/fail", "/mutate/ignore", "/policyvalidate"]) {
      for (const type of ["text/plain", "application/x-www-form-urlencoded", null]) {
        const answer = await call(port, certs.ca.certPem, "POST", path, privileged, type);
        expect(`${path} ${type}: ${answer.status}`).toBe(`${path} ${type}: 415`);
        expect(answer.text).toBe("invalid Content-Type, expect `application/json`\n");
      }
    }
    const charset = await call(
      port,
      certs.ca.certPem,
      "POST",
      "/validate/fail",
      privileged,
      "Application/JSON; charset=utf-8",
    );
    expect(charset.status).toBe(200);
    expect(JSON.parse(charset.text).response.allowed).toBe(false);
  });

  it("serves the policy validation endpoint", async () => {
    const bad = {
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      metadata: { name: "p" },
      spec: { rules: [{ name: "r" }] },
    };
    const answer = await call(
      port,
      certs.ca.certPem,
      "POST",
      "/policyvalidate",
      JSON.stringify(review({ object: bad as never })),
    );
    const response = JSON.parse(answer.text).response;
    expect(response.allowed).toBe(false);
    expect(response.status.message).toContain("spec.rules[0]");
  });

  it("serves liveness and readiness probes", async () => {
    expect((await call(port, certs.ca.certPem, "GET", "/health/liveness")).status).toBe(200);
    expect((await call(port, certs.ca.certPem, "GET", "/health/readiness")).status).toBe(200);
    ready = false;
    expect((await call(port, certs.ca.certPem, "GET", "/health/readiness")).status).toBe(503);
    ready = true;
  });

  it("exposes HTTP and admission metrics on the metrics port", async () => {
    const text = await plainGet(metricsPort, "/metrics");
    expect(text).toMatch(/kyverno_http_requests_total\{http_method="POST",http_url="\/validate\/fail"\} \d+/);
    expect(text).toContain('request_webhook="ValidatingWebhookConfiguration"');
    expect(text).toContain('rule_execution_cause="admission_request"');
  });

  it("picks up a rotated certificate for new connections without a restart", async () => {
    const rotated = await generateCertificates({ hosts: ["127.0.0.1"], clock });
    expect(() => server.setCertificate(rotated.serving.certPem, certs.serving.keyPem)).toThrow();
    expect((await call(port, certs.ca.certPem, "GET", "/health/liveness")).status).toBe(200);
    server.setCertificate(rotated.serving.certPem, rotated.serving.keyPem);
    expect((await call(port, rotated.ca.certPem, "GET", "/health/liveness")).status).toBe(200);
    await expect(call(port, certs.ca.certPem, "GET", "/health/liveness")).rejects.toThrow(
      /self-signed|unable to verify|certificate/i,
    );
  });
});
