import { createServer } from "node:net";
import type { JsonObject } from "@kyverno-ts/api";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createCertificateAuthority } from "../tls/certificates.js";
import { configuration, podAttrs, webhook } from "./testing/attrs.js";
import { type Harness, startHarness } from "./testing/harness.js";
import { patchReply, respond, uidOf } from "./testing/webhook-server.js";
import type { AdmissionResult } from "./types.js";

let h: Harness;
let otherCaBundle: string;
beforeAll(async () => {
  h = await startHarness();
  const otherCa = await createCertificateAuthority({ commonName: "some other CA" });
  otherCaBundle = Buffer.from(otherCa.caCertPem).toString("base64");
});
afterAll(() => h.close());
beforeEach(() => h.reset());

const allow = (review: JsonObject) => respond(review, { allowed: true });

function rejection(result: AdmissionResult) {
  if (result.allowed) throw new Error("expected the request to be rejected");
  return result.status;
}

/** Registers one validating webhook (or mutating with `kind`) and admits a Pod. */
async function admitWith(
  clientConfig: JsonObject,
  extra: JsonObject = {},
  kind: "Mutating" | "Validating" = "Validating",
  attrs = podAttrs(),
): Promise<AdmissionResult> {
  const list = kind === "Mutating" ? h.mutating : h.validating;
  list.push(configuration(kind, "c", [webhook("hook.example.com", clientConfig, extra)]));
  return h.chain.admit(attrs);
}

const failedCalling = (reason: string) =>
  `Internal error occurred: failed calling webhook "hook.example.com": ${reason}`;

describe("misbehaving webhooks under failurePolicy Fail", () => {
  it("rejects a response with the wrong uid", async () => {
    h.routes.set("/w", () => ({
      body: {
        apiVersion: "admission.k8s.io/v1",
        kind: "AdmissionReview",
        response: { uid: "wrong", allowed: true },
      },
    }));
    const status = rejection(await admitWith(h.url("/w")));
    const uid = uidOf(h.reviews("/w")[0] ?? {});
    expect(status.code).toBe(500);
    expect(status.reason).toBe("InternalError");
    expect(status.message).toBe(
      failedCalling(`received invalid webhook response: expected response.uid="${uid}", got "wrong"`),
    );
    expect(h.logs[0]).toMatch(
      /^Failed calling webhook, failing closed hook.example.com: failed calling webhook/,
    );
  });

  it("rejects on timeout with Go's message, after timeoutSeconds", async () => {
    h.routes.set("/slow", () => ({ hang: true }));
    const started = Date.now();
    const status = rejection(await admitWith(h.url("/slow"), { timeoutSeconds: 1 }));
    const elapsed = Date.now() - started;
    expect(status.message).toBe(
      failedCalling(
        `failed to call webhook: Post "${h.server.url}/slow?timeout=1s": context deadline exceeded`,
      ),
    );
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(2000);
  });

  it("rejects when the certificate is not signed by caBundle", async () => {
    h.routes.set("/v", allow);
    const status = rejection(await admitWith({ url: `${h.server.url}/v`, caBundle: otherCaBundle }));
    expect(status.message).toBe(
      failedCalling(
        `failed to call webhook: Post "${h.server.url}/v?timeout=2s": tls: failed to verify certificate: x509: certificate signed by unknown authority`,
      ),
    );
    expect(h.server.received).toHaveLength(0);
  });

  it("rejects a caBundle without certificates, and verifies against the system roots without one", async () => {
    const garbage = Buffer.from("not a certificate").toString("base64");
    expect(rejection(await admitWith({ url: `${h.server.url}/v`, caBundle: garbage })).message).toBe(
      failedCalling(
        "could not get REST client: unable to load root certificates: unable to parse bytes as PEM block",
      ),
    );
    h.reset();
    expect(rejection(await admitWith({ url: `${h.server.url}/v` })).message).toMatch(
      /certificate signed by unknown authority$/,
    );
  });

  it("rejects when the certificate does not name the Service", async () => {
    const service = {
      service: { namespace: "other", name: "hook", port: 443, path: "/v" },
      caBundle: h.pki.caBundle,
    };
    const status = rejection(await admitWith(service));
    expect(status.message).toBe(
      failedCalling(
        'failed to call webhook: Post "https://hook.other.svc:443/v?timeout=2s": tls: failed to verify certificate: x509: certificate is valid for hook.webhooks.svc, not hook.other.svc',
      ),
    );
  });

  it("rejects when nothing listens", async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const address = s.address();
        s.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
      });
    });
    const status = rejection(
      await admitWith({ url: `https://127.0.0.1:${port}/v`, caBundle: h.pki.caBundle }),
    );
    expect(status.message).toBe(
      failedCalling(
        `failed to call webhook: Post "https://127.0.0.1:${port}/v?timeout=2s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
      ),
    );
  });

  it.each([
    [
      { status: 500, contentType: "text/plain", body: "boom" },
      'an error on the server ("boom") has prevented the request from succeeding',
    ],
    [{ body: "{oops" }, "couldn't get version/kind; json parse error: "],
    [{ body: { response: { allowed: true } } }, "received invalid webhook response: expected response.uid="],
  ])("rejects a bad answer %#", async (reply, detail) => {
    h.routes.set("/bad", () => reply);
    const status = rejection(await admitWith(h.url("/bad")));
    expect(status.code).toBe(500);
    expect(status.message).toContain(detail);
  });

  it("rejects a webhook that does not accept AdmissionReview v1 or v1beta1", async () => {
    const status = rejection(await admitWith(h.url("/v"), { admissionReviewVersions: ["v2"] }));
    expect(status.message).toBe(
      failedCalling(
        "could not create admission objects: webhook does not accept v1 or v1beta1 AdmissionReview",
      ),
    );
  });
});

describe("misbehaving webhooks under failurePolicy Ignore", () => {
  it("allows on wrong uid, logging and annotating the failure, without a warning", async () => {
    h.routes.set("/w", (review) => ({
      body: { ...(allow(review).body as JsonObject), response: { uid: "x", allowed: true } },
    }));
    const result = await admitWith(h.url("/w"), { failurePolicy: "Ignore" });
    expect(result).toMatchObject({
      allowed: true,
      warnings: [],
      auditAnnotations: {
        "failed-open.validating.webhook.admission.k8s.io/round_0_index_0": "hook.example.com",
      },
    });
    expect(h.logs[0]).toMatch(/^Failed calling webhook, failing open hook.example.com: /);
  });

  it("allows after the timeout", async () => {
    h.routes.set("/slow", () => ({ hang: true }));
    const started = Date.now();
    const result = await admitWith(
      h.url("/slow"),
      { timeoutSeconds: 1, failurePolicy: "Ignore" },
      "Mutating",
    );
    expect(result.allowed).toBe(true);
    expect(result.allowed && result.auditAnnotations).toMatchObject({
      "failed-open.mutation.webhook.admission.k8s.io/round_0_index_0": "hook.example.com",
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("allows on a TLS failure", async () => {
    const result = await admitWith(
      { url: `${h.server.url}/v`, caBundle: otherCaBundle },
      { failurePolicy: "Ignore" },
    );
    expect(result.allowed).toBe(true);
  });
});

describe("patches that cannot be applied", () => {
  it.each(["Fail", "Ignore"])(
    "reject the request under %s (upstream: an internal error, not a calling error)",
    async (policy) => {
      h.routes.set("/p", (review) =>
        patchReply(review, [{ op: "replace", path: "/spec/nothing/here", value: 1 }]),
      );
      const status = rejection(await admitWith(h.url("/p"), { failurePolicy: policy }, "Mutating"));
      expect(status.code).toBe(500);
      expect(status.message).toMatch(
        /^Internal error occurred: failed to apply JSON patch operation 0 \(replace \/spec\/nothing\/here\)/,
      );
    },
  );

  it("rejects a patch that is not JSON", async () => {
    h.routes.set("/p", (review) =>
      respond(review, {
        allowed: true,
        patchType: "JSONPatch",
        patch: Buffer.from("nope").toString("base64"),
      }),
    );
    const status = rejection(await admitWith(h.url("/p"), {}, "Mutating"));
    expect(status.message).toMatch(/^Internal error occurred: /);
  });

  it("rejects an unsupported patchType under Fail only", async () => {
    const reply = (review: JsonObject) =>
      patchReply(review, [{ op: "add", path: "/x", value: 1 }], { patchType: "MergePatch" });
    h.routes.set("/p", reply);
    expect(rejection(await admitWith(h.url("/p"), {}, "Mutating")).message).toBe(
      failedCalling('unsupported patch type "MergePatch"'),
    );
    h.reset();
    h.routes.set("/p", reply);
    expect((await admitWith(h.url("/p"), { failurePolicy: "Ignore" }, "Mutating")).allowed).toBe(true);
  });

  it("rejects a patch on DELETE, which has no object", async () => {
    h.routes.set("/p", (review) => patchReply(review, [{ op: "add", path: "/x", value: 1 }]));
    const attrs = podAttrs({ operation: "DELETE", object: null, oldObject: podAttrs().object });
    const status = rejection(await admitWith(h.url("/p"), {}, "Mutating", attrs));
    expect(status.message).toBe(
      'Internal error occurred: admission webhook "hook.example.com" attempted to modify the object, which is not supported for this operation',
    );
  });
});

describe("dry run and side effects", () => {
  it.each(["Some", "Unknown"])(
    "a dry run never reaches a webhook with sideEffects %s, whatever the policy",
    async (sideEffects) => {
      h.routes.set("/v", allow);
      const status = rejection(
        await admitWith(
          h.url("/v"),
          { sideEffects, failurePolicy: "Ignore" },
          "Validating",
          podAttrs({ dryRun: true }),
        ),
      );
      expect(status).toEqual({
        code: 400,
        reason: "BadRequest",
        message: 'admission webhook "hook.example.com" does not support dry run',
      });
      expect(h.server.received).toHaveLength(0);
    },
  );

  it.each(["None", "NoneOnDryRun"])(
    "a dry run reaches a webhook with sideEffects %s",
    async (sideEffects) => {
      h.routes.set("/v", allow);
      const result = await admitWith(h.url("/v"), { sideEffects }, "Mutating", podAttrs({ dryRun: true }));
      expect(result.allowed).toBe(true);
      const request = h.reviews("/v")[0]?.request as JsonObject;
      expect(request.dryRun).toBe(true);
    },
  );

  it("sideEffects Some is fine without dry run", async () => {
    h.routes.set("/v", allow);
    expect((await admitWith(h.url("/v"), { sideEffects: "Some" })).allowed).toBe(true);
  });
});

describe("the request deadline", () => {
  it("bounds webhook calls and answers 504 when it passes under Ignore", async () => {
    h.routes.set("/slow", () => ({ hang: true }));
    h.mutating.push(
      configuration("Mutating", "m", [
        webhook("a", h.url("/slow"), { failurePolicy: "Ignore", timeoutSeconds: 5 }),
        webhook("b", h.url("/slow"), { failurePolicy: "Ignore", timeoutSeconds: 5 }),
      ]),
    );
    const started = Date.now();
    const status = rejection(await h.chain.admit(podAttrs(), { timeoutSeconds: 1 }));
    expect(status).toMatchObject({
      code: 504,
      reason: "Timeout",
      message: "Timeout: request did not complete within requested timeout",
    });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(h.server.received).toHaveLength(1);
  });

  it("fails pending calls with context canceled when the signal aborts", async () => {
    h.routes.set("/slow", () => ({ hang: true }));
    h.validating.push(configuration("Validating", "v", [webhook("hook.example.com", h.url("/slow"))]));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const status = rejection(await h.chain.admit(podAttrs(), { signal: controller.signal }));
    expect(status.message).toBe(
      failedCalling(`failed to call webhook: Post "${h.server.url}/slow?timeout=2s": context canceled`),
    );
  });
});
