import { createEngine } from "@kyverno-ts/engine";
import { describe, expect, it } from "vitest";
import { createPolicyCache } from "../../policycache/policy-cache.js";
import {
  fakeClock,
  immediate,
  pod,
  podValidatePolicy,
  recordingLogger,
  review,
} from "../../testing/fixtures.js";
import { defaultKyvernoConfig } from "./filters.js";
import { createAdmissionHandler, type WebhookRoute } from "./handler.js";
import { blockedMessage, yamlScalar } from "./messages.js";
import { allow, allowWithPatch, deny, parseAdmissionReview, serializeReview } from "./review.js";

const UID = "705ab4f5-6393-11e8-b7cc-42010a800002";

describe("parseAdmissionReview", () => {
  it("reads a valid review with the object as a KubeObject", () => {
    const parsed = parseAdmissionReview(JSON.stringify(review({ dryRun: true })));
    expect(parsed.ok && parsed.review.request).toMatchObject({ uid: UID, operation: "CREATE", dryRun: true });
    expect(parsed.ok && parsed.review.object?.kind).toBe("Pod");
  });

  it.each([
    ["not JSON", "{not json", undefined, /^request body is not valid JSON/],
    ["not JSON, uid readable", `{"request":{"uid":"${UID}", oops`, UID, /not valid JSON/],
    ["a JSON array", "[]", undefined, /not an AdmissionReview object/],
    [
      "a wrong apiVersion",
      JSON.stringify({ ...review({}), apiVersion: "admission.k8s.io/v1beta1" }),
      UID,
      /unsupported AdmissionReview apiVersion "admission.k8s.io\/v1beta1"/,
    ],
    ["a wrong kind", JSON.stringify({ ...review({}), kind: "Pod" }), UID, /expected kind AdmissionReview/],
    [
      "no request",
      JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" }),
      undefined,
      /no request/,
    ],
    [
      "a missing object",
      JSON.stringify(review({ object: null })),
      UID,
      /request.object is required for CREATE/,
    ],
    [
      "DELETE without oldObject",
      JSON.stringify(review({ operation: "DELETE", object: null })),
      UID,
      /request.oldObject is required for DELETE/,
    ],
    [
      "an unknown operation",
      JSON.stringify({ ...review({}), request: { ...(review({}).request as object), operation: "PATCH" } }),
      UID,
      /request.operation must be CREATE, UPDATE, DELETE or CONNECT/,
    ],
    [
      "a uid that is not a UUID",
      JSON.stringify({ ...review({}), request: { ...(review({}).request as object), uid: "<script>" } }),
      undefined,
      /request.uid must be a UUID string/,
    ],
  ])("rejects %s", (_name, body, uid, message) => {
    const parsed = parseAdmissionReview(body);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.uid).toBe(uid);
      expect(parsed.message).toMatch(message);
    }
  });
});

describe("bad input through the handler", () => {
  const clock = fakeClock();
  const engine = createEngine({ clock: clock });
  const cache = createPolicyCache({ engine });
  cache.set(podValidatePolicy({ name: "p" }));
  const handler = createAdmissionHandler({
    engine,
    policyCache: cache,
    clock,
    logger: recordingLogger(),
    config: defaultKyvernoConfig(),
  });
  const fail: WebhookRoute = { type: "validate", failurePolicy: "Fail" };
  const ignore: WebhookRoute = { type: "validate", failurePolicy: "Ignore" };

  it("answers HTTP 400 with a Status when no uid can be read", () => {
    for (const body of [
      "",
      "   ",
      "{",
      "null",
      '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}',
    ]) {
      const reply = immediate(handler.handleBody(fail, body));
      expect(reply.statusCode).toBe(400);
      expect(reply.body).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", code: 400 });
    }
  });

  it("answers an AdmissionReview per the endpoint's failure policy when the uid is readable", () => {
    const body = JSON.stringify(review({ object: null }));
    expect(immediate(handler.handleBody(fail, body))).toEqual({
      statusCode: 200,
      body: {
        apiVersion: "admission.k8s.io/v1",
        kind: "AdmissionReview",
        response: {
          uid: UID,
          allowed: false,
          status: { status: "Failure", code: 400, message: "request.object is required for CREATE requests" },
        },
      },
    });
    const ignored = immediate(handler.handleBody(ignore, body));
    expect(ignored.statusCode === 200 && ignored.body.response).toEqual({
      uid: UID,
      allowed: true,
      warnings: [
        "kyverno: invalid admission request ignored (failurePolicy Ignore): request.object is required for CREATE requests",
      ],
    });
  });

  it("answers an oversized body by its uid when the head shows one", () => {
    const head = JSON.stringify(review({ object: pod() })).slice(0, 300);
    const reply = handler.rejectBody(fail, head, "request body exceeds the limit of 3145728 bytes");
    expect(reply.statusCode === 200 && reply.body.response).toMatchObject({ uid: UID, allowed: false });
    expect(handler.rejectBody(fail, "xxxx", "too large").statusCode).toBe(400);
  });

  it("survives deeply nested objects", () => {
    const depth = 200_000;
    const body = JSON.stringify(review({ object: pod({ privileged: true }) })).replace(
      '"spec":',
      `"nested":${"[".repeat(depth)}0${"]".repeat(depth)},"spec":`,
    );
    const reply = immediate(handler.handleBody(fail, body));
    expect(reply.statusCode).toBe(200);
    expect(reply.statusCode === 200 && reply.body.response.allowed).toBe(false);
  });
});

describe("messages", () => {
  it.each([
    ["plain text.", "plain text."],
    ["validation error: x", "'validation error: x'"],
    ["it's fine", "it's fine"],
    ["'quoted'", "'''quoted'''"],
    ["true", '"true"'],
    ["12", '"12"'],
    ["", "''"],
    ["- item", "'- item'"],
    ["a #comment", "'a #comment'"],
    ["ends with colon:", "'ends with colon:'"],
    ["two\nlines", '"two\\nlines"'],
    ["*star", "'*star'"],
  ])("formats %j as a YAML scalar like go-yaml", (input, expected) => {
    expect(yamlScalar(input)).toBe(expected);
  });

  it("formats a cluster-scoped resource with an empty namespace", () => {
    expect(blockedMessage("Namespace//prod", [{ policy: "p", rule: "r", message: "m" }])).toBe(
      "\n\nresource Namespace//prod was blocked due to the following policies\n\np:\n  r: m\n",
    );
  });
});

describe("serializeReview", () => {
  it("writes exactly what JSON.stringify writes, for every answer shape", () => {
    const answers = [
      allow(UID),
      allow('a"b\\c'),
      allow(UID, ["policy p.r: audit warning"]),
      deny(UID, "blocked"),
      deny(UID, "too large", 413),
      allowWithPatch(UID, [{ op: "add", path: "/metadata/labels/x", value: "y" }]),
      allowWithPatch(UID, []),
    ];
    for (const answer of answers) expect(serializeReview(answer)).toBe(JSON.stringify(answer));
  });
});
