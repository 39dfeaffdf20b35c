import { describe, expect, it } from "vitest";
import { buildAdmissionReview, decodeHttpAnswer, pickReviewVersion, verifyResponse } from "./review.js";
import { podAttrs } from "./testing/attrs.js";

const answer = (status: number, body: string, contentType?: string) => ({
  ok: true as const,
  status,
  contentType,
  body,
});
const review = (response: unknown, apiVersion = "admission.k8s.io/v1") => ({
  apiVersion,
  kind: "AdmissionReview",
  response: response as never,
});

describe("buildAdmissionReview", () => {
  it("fills the request as kube-apiserver does", () => {
    const attrs = podAttrs({ user: { username: "alice", groups: [], extra: { scopes: ["a"] } } });
    const r = buildAdmissionReview("v1", "uid-1", attrs);
    expect(r).toEqual({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      request: {
        uid: "uid-1",
        kind: { group: "", version: "v1", kind: "Pod" },
        resource: { group: "", version: "v1", resource: "pods" },
        requestKind: { group: "", version: "v1", kind: "Pod" },
        requestResource: { group: "", version: "v1", resource: "pods" },
        name: "nginx",
        namespace: "default",
        operation: "CREATE",
        userInfo: { username: "alice", extra: { scopes: ["a"] } },
        object: attrs.object,
        oldObject: null,
        dryRun: false,
        options: { kind: "CreateOptions", apiVersion: "meta.k8s.io/v1" },
      },
    });
  });

  it("includes subresources and the v1beta1 apiVersion", () => {
    const r = buildAdmissionReview("v1beta1", "u", podAttrs({ subResource: "status" }));
    expect(r.apiVersion).toBe("admission.k8s.io/v1beta1");
    expect(r.request).toMatchObject({ subResource: "status", requestSubResource: "status" });
  });

  it("picks the first supported review version", () => {
    expect(pickReviewVersion(["v2", "v1beta1", "v1"])).toBe("v1beta1");
    expect(pickReviewVersion(["v2"])).toBeUndefined();
  });
});

describe("decodeHttpAnswer", () => {
  it.each([
    [
      answer(500, "boom", "text/plain"),
      'an error on the server ("boom") has prevented the request from succeeding',
    ],
    [answer(404, "nope", "text/plain"), "the server could not find the requested resource"],
    [answer(503, "{}", "application/json"), "the server is currently unable to handle the request"],
    [
      answer(502, "{}", "application/json"),
      'an error on the server ("unknown") has prevented the request from succeeding',
    ],
    [answer(403, JSON.stringify({ kind: "Status", status: "Failure", message: "go away" })), "go away"],
    [answer(200, "hello", "text/plain"), "serializer for text/plain doesn't exist"],
    [answer(200, ""), "0-length response with status code: 200 and content type: application/json"],
    [answer(200, "{not json"), /^couldn't get version\/kind; json parse error: /],
    [
      answer(200, JSON.stringify(review({ allowed: "yes" }))),
      "json: cannot unmarshal string into Go struct field AdmissionResponse.response.allowed of type bool",
    ],
    [answer(200, JSON.stringify(review({ patch: "@@@" }))), "illegal base64 data at input byte 0"],
  ])("%#: %s", (input, expected) => {
    const r = decodeHttpAnswer(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(expected);
  });

  it("accepts JSON with a charset", () => {
    const r = decodeHttpAnswer(
      answer(200, JSON.stringify(review({ uid: "u", allowed: true })), "application/json; charset=utf-8"),
    );
    expect(r.ok).toBe(true);
  });
});

describe("verifyResponse", () => {
  it("rejects an absent response, a wrong uid and a wrong kind", () => {
    expect(
      verifyResponse({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" }, "v1", "u", false),
    ).toEqual({
      ok: false,
      error: "webhook response was absent",
    });
    expect(verifyResponse(review({ uid: "other", allowed: true }), "v1", "u", false)).toEqual({
      ok: false,
      error: 'expected response.uid="u", got "other"',
    });
    expect(verifyResponse({ response: { uid: "u", allowed: true } }, "v1", "u", false)).toEqual({
      ok: false,
      error: "expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got /, Kind=",
    });
  });

  it("checks patch and patchType consistency", () => {
    const patch = Buffer.from("[]").toString("base64");
    const errorOf = (resp: object, mutating: boolean) => {
      const r = verifyResponse(review({ uid: "u", allowed: true, ...resp }), "v1", "u", mutating);
      return r.ok ? "ok" : r.error;
    };
    expect(errorOf({ patch }, true)).toBe("webhook returned response.patch but not response.patchType");
    expect(errorOf({ patchType: "JSONPatch" }, true)).toBe(
      "webhook returned response.patchType but not response.patch",
    );
    expect(errorOf({ patch, patchType: "JSONPatch" }, false)).toBe(
      "validating webhook may not return response.patch",
    );
    expect(errorOf({ patch, patchType: "JSONPatch" }, true)).toBe("ok");
  });

  it("does not check uid or kind for v1beta1", () => {
    const r = verifyResponse({ response: { uid: "x", allowed: true } }, "v1beta1", "u", false);
    expect(r.ok).toBe(true);
  });

  it("collects warnings, status and audit annotations", () => {
    const r = verifyResponse(
      review({
        uid: "u",
        allowed: false,
        warnings: ["w"],
        status: { code: 403 },
        auditAnnotations: { a: "b" },
      }),
      "v1",
      "u",
      false,
    );
    expect(r).toEqual({
      ok: true,
      response: {
        allowed: false,
        status: { code: 403 },
        patch: "",
        patchType: "",
        warnings: ["w"],
        auditAnnotations: { a: "b" },
      },
    });
  });
});
