import type { JsonObject } from "@kyverno-ts/api";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { configuration, podAttrs, webhook } from "./testing/attrs.js";
import { type Harness, SERVICE_DNS, startHarness } from "./testing/harness.js";
import { patchReply, respond } from "./testing/webhook-server.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.reset());

const allow = (review: JsonObject) => respond(review, { allowed: true });

function requestOf(review: JsonObject | undefined): JsonObject {
  const r = review?.request;
  return typeof r === "object" && r !== null && !Array.isArray(r) ? r : {};
}

describe("allowing and denying", () => {
  it("allows, sending a well-formed AdmissionReview v1", async () => {
    h.routes.set("/validate", allow);
    h.validating.push(configuration("Validating", "v", [webhook("v.example.com", h.url("/validate"))]));
    const attrs = podAttrs();
    const result = await h.chain.admit(attrs);
    expect(result).toEqual({ allowed: true, object: attrs.object, warnings: [], auditAnnotations: {} });
    const [review] = h.reviews("/validate");
    expect(review?.apiVersion).toBe("admission.k8s.io/v1");
    const req = requestOf(review);
    expect(req.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(req).toMatchObject({
      kind: { group: "", version: "v1", kind: "Pod" },
      resource: { group: "", version: "v1", resource: "pods" },
      operation: "CREATE",
      namespace: "default",
      name: "nginx",
      userInfo: { username: "alice", uid: "u-1", groups: ["system:authenticated"] },
      object: attrs.object,
      oldObject: null,
      dryRun: false,
    });
    expect(h.server.received[0]?.path).toBe("/validate?timeout=2s");
  });

  it("denies with upstream's message, code and reason", async () => {
    h.routes.set("/deny", (review) =>
      respond(review, {
        allowed: false,
        status: { code: 403, reason: "Forbidden", message: "no latest tags" },
      }),
    );
    h.validating.push(configuration("Validating", "v", [webhook("deny.example.com", h.url("/deny"))]));
    const result = await h.chain.admit(podAttrs());
    expect(result).toMatchObject({
      allowed: false,
      status: {
        code: 403,
        reason: "Forbidden",
        message: 'admission webhook "deny.example.com" denied the request: no latest tags',
      },
    });
  });

  it.each([
    [{}, 400, 'admission webhook "d" denied the request without explanation'],
    [{ code: 200, reason: "NotAllowed" }, 400, 'admission webhook "d" denied the request: NotAllowed'],
    [{ code: 422, message: "bad" }, 422, 'admission webhook "d" denied the request: bad'],
  ])("denial status %j → %i %s", async (status, code, message) => {
    h.routes.set("/deny", (review) => respond(review, { allowed: false, status }));
    h.mutating.push(configuration("Mutating", "m", [webhook("d", h.url("/deny"))]));
    const result = await h.chain.admit(podAttrs());
    expect(result.allowed).toBe(false);
    if (!result.allowed) expect(result.status).toMatchObject({ code, message });
  });

  it("collects warnings (deduplicated) and prefixes audit annotations with the webhook name", async () => {
    h.routes.set("/m", (review) =>
      respond(review, { allowed: true, warnings: ["w1", "shared"], auditAnnotations: { k: "1" } }),
    );
    h.routes.set("/v", (review) =>
      respond(review, { allowed: true, warnings: ["shared", "w2"], auditAnnotations: { k: "2" } }),
    );
    h.mutating.push(configuration("Mutating", "m", [webhook("m.example.com", h.url("/m"))]));
    h.validating.push(configuration("Validating", "v", [webhook("v.example.com", h.url("/v"))]));
    const result = await h.chain.admit(podAttrs());
    expect(result.warnings).toEqual(["w1", "shared", "w2"]);
    expect(result.allowed && result.auditAnnotations).toEqual({
      "m.example.com/k": "1",
      "mutation.webhook.admission.k8s.io/round_0_index_0":
        '{"configuration":"m","webhook":"m.example.com","mutated":false}',
      "v.example.com/k": "2",
    });
  });

  it("returns warnings along with a denial", async () => {
    h.routes.set("/v", (review) => respond(review, { allowed: false, warnings: ["careful"] }));
    h.validating.push(configuration("Validating", "v", [webhook("v", h.url("/v"))]));
    const result = await h.chain.admit(podAttrs());
    expect(result).toMatchObject({ allowed: false, warnings: ["careful"] });
  });

  it("never sends webhook configurations to webhooks", async () => {
    h.routes.set("/deny", (review) => respond(review, { allowed: false }));
    const everything = { operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*/*"] };
    h.validating.push(
      configuration("Validating", "v", [webhook("deny", h.url("/deny"), { rules: [everything] })]),
    );
    const attrs = podAttrs({
      kind: { group: "admissionregistration.k8s.io", version: "v1", kind: "ValidatingWebhookConfiguration" },
      resource: {
        group: "admissionregistration.k8s.io",
        version: "v1",
        resource: "validatingwebhookconfigurations",
      },
      namespace: "",
    });
    expect((await h.chain.admit(attrs)).allowed).toBe(true);
    expect((await h.chain.admit(podAttrs())).allowed).toBe(false);
  });
});

describe("mutating then validating", () => {
  it("applies patches in order and validating webhooks see the result", async () => {
    h.routes.set("/label", (review) =>
      patchReply(review, [{ op: "add", path: "/metadata/labels/team", value: "a" }]),
    );
    h.routes.set("/image", (review) => {
      const object = requestOf(review).object as JsonObject;
      const labels = (object.metadata as JsonObject).labels as JsonObject;
      return patchReply(review, [
        { op: "replace", path: "/spec/containers/0/image", value: `registry/${String(labels.team)}` },
      ]);
    });
    h.routes.set("/check", allow);
    // "a-config" sorts before "b-config": its webhook runs first although registered second.
    h.mutating.push(configuration("Mutating", "b-config", [webhook("image", h.url("/image"))]));
    h.mutating.push(configuration("Mutating", "a-config", [webhook("label", h.url("/label"))]));
    h.validating.push(configuration("Validating", "v", [webhook("check", h.url("/check"))]));
    const result = await h.chain.admit(podAttrs());
    expect(result.allowed).toBe(true);
    const expected = {
      metadata: { labels: { app: "nginx", team: "a" } },
      spec: { containers: [{ name: "nginx", image: "registry/a" }] },
    };
    expect(result.allowed && result.object).toMatchObject(expected);
    expect(requestOf(h.reviews("/check")[0]).object).toMatchObject(expected);
    expect(
      result.allowed && result.auditAnnotations["mutation.webhook.admission.k8s.io/round_0_index_1"],
    ).toBe('{"configuration":"b-config","webhook":"image","mutated":true}');
  });

  it("calls validating webhooks in parallel", async () => {
    for (const path of ["/slow1", "/slow2", "/slow3"])
      h.routes.set(path, (review) => ({ ...allow(review), delayMs: 400 }));
    h.validating.push(
      configuration("Validating", "v", [
        webhook("s1", h.url("/slow1")),
        webhook("s2", h.url("/slow2")),
        webhook("s3", h.url("/slow3")),
      ]),
    );
    const started = Date.now();
    expect((await h.chain.admit(podAttrs())).allowed).toBe(true);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(h.server.received).toHaveLength(3);
  });

  it("mutate and validate can run apart", async () => {
    h.routes.set("/label", (review) =>
      patchReply(review, [{ op: "add", path: "/metadata/labels/x", value: "y" }]),
    );
    h.routes.set("/deny", (review) => respond(review, { allowed: false }));
    h.mutating.push(configuration("Mutating", "m", [webhook("label", h.url("/label"))]));
    h.validating.push(configuration("Validating", "v", [webhook("deny", h.url("/deny"))]));
    const mutated = await h.chain.mutate(podAttrs());
    expect(mutated.allowed && mutated.object).toMatchObject({ metadata: { labels: { x: "y" } } });
    expect(h.reviews("/deny")).toHaveLength(0);
    expect((await h.chain.validate(podAttrs())).allowed).toBe(false);
  });
});

describe("selecting webhooks", () => {
  beforeEach(() => h.routes.set("/v", allow));

  it("honours namespaceSelector and objectSelector", async () => {
    h.validating.push(
      configuration("Validating", "v", [
        webhook("ns", h.url("/v"), { namespaceSelector: { matchLabels: { env: "prod" } } }),
        webhook("obj", h.url("/v"), {
          objectSelector: { matchExpressions: [{ key: "app", operator: "In", values: ["nginx"] }] },
        }),
      ]),
    );
    await h.chain.admit(podAttrs({ namespaceLabels: { env: "dev" } }));
    expect(h.server.received).toHaveLength(1);
    await h.chain.admit(podAttrs({ namespaceLabels: { env: "prod" } }));
    expect(h.server.received).toHaveLength(3);
  });

  it("skips on a false matchCondition, fails on an erroring one under Fail, skips it under Ignore", async () => {
    const conditions = (expression: string) => ({ matchConditions: [{ name: "c", expression }] });
    h.validating.push(
      configuration("Validating", "v", [
        webhook("f", h.url("/v"), conditions("request.userInfo.username != 'alice'")),
      ]),
    );
    expect((await h.chain.admit(podAttrs())).allowed).toBe(true);
    expect(h.server.received).toHaveLength(0);

    h.validating.length = 0;
    const erroring = conditions("object.metadata.annotations['x'] == 'y'");
    h.validating.push(configuration("Validating", "v", [webhook("e", h.url("/v"), erroring)]));
    const failed = await h.chain.admit(podAttrs());
    expect(failed.allowed).toBe(false);
    if (!failed.allowed) {
      expect(failed.status.code).toBe(403);
      expect(failed.status.message).toMatch(
        /^pods "nginx" is forbidden: expression 'object.metadata.annotations\['x'\] == 'y'' resulted in error: /,
      );
    }

    h.validating.length = 0;
    h.validating.push(
      configuration("Validating", "v", [webhook("e", h.url("/v"), { ...erroring, failurePolicy: "Ignore" })]),
    );
    expect((await h.chain.admit(podAttrs())).allowed).toBe(true);
    expect(h.server.received).toHaveLength(0);
  });

  it("reaches a Service through resolveService, verifying the Service DNS name", async () => {
    const service = {
      service: { namespace: "webhooks", name: "hook", port: 443, path: "/v" },
      caBundle: h.pki.caBundle,
    };
    h.validating.push(configuration("Validating", "v", [webhook("svc", service)]));
    expect((await h.chain.admit(podAttrs())).allowed).toBe(true);
    expect(h.reviews("/v")).toHaveLength(1);
    expect(SERVICE_DNS).toBe("hook.webhooks.svc");
  });

  it("speaks v1beta1 to webhooks that only accept it", async () => {
    h.routes.set("/beta", () => ({
      body: {
        apiVersion: "admission.k8s.io/v1beta1",
        kind: "AdmissionReview",
        response: { uid: "anything", allowed: true },
      },
    }));
    h.validating.push(
      configuration("Validating", "v", [
        webhook("b", h.url("/beta"), { admissionReviewVersions: ["v1beta1"] }),
      ]),
    );
    expect((await h.chain.admit(podAttrs())).allowed).toBe(true);
    expect(h.reviews("/beta")[0]?.apiVersion).toBe("admission.k8s.io/v1beta1");
  });
});
