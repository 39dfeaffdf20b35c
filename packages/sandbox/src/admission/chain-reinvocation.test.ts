import type { JsonObject } from "@kyverno-ts/api";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { configuration, podAttrs, webhook } from "./testing/attrs.js";
import { type Harness, startHarness } from "./testing/harness.js";
import { patchReply, respond, type ScriptedReply } from "./testing/webhook-server.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.reset());

function labelsOf(review: JsonObject | undefined): JsonObject {
  const request = review?.request as JsonObject | undefined;
  const object = request?.object as JsonObject | undefined;
  return ((object?.metadata as JsonObject | undefined)?.labels as JsonObject | undefined) ?? {};
}

/** Adds label `key=value` unless present (an idempotent webhook, as reinvocation expects). */
function addLabel(key: string, value: string) {
  return (review: JsonObject): ScriptedReply =>
    Object.hasOwn(labelsOf(review), key)
      ? respond(review, { allowed: true })
      : patchReply(review, [{ op: "add", path: `/metadata/labels/${key}`, value }]);
}

describe("reinvocationPolicy", () => {
  it("calls an IfNeeded webhook again when a later webhook changed the object", async () => {
    h.routes.set("/a", addLabel("a", "1"));
    h.routes.set("/b", addLabel("b", "2"));
    h.mutating.push(
      configuration("Mutating", "m", [
        webhook("a", h.url("/a"), { reinvocationPolicy: "IfNeeded" }),
        webhook("b", h.url("/b")),
      ]),
    );
    const result = await h.chain.admit(podAttrs());
    expect(result.allowed && result.object).toMatchObject({
      metadata: { labels: { app: "nginx", a: "1", b: "2" } },
    });
    const aCalls = h.reviews("/a");
    expect(aCalls).toHaveLength(2);
    expect(labelsOf(aCalls[1])).toEqual({ app: "nginx", a: "1", b: "2" });
    expect(h.reviews("/b")).toHaveLength(1);
    expect(result.allowed && result.auditAnnotations).toMatchObject({
      "mutation.webhook.admission.k8s.io/round_0_index_0":
        '{"configuration":"m","webhook":"a","mutated":true}',
      "mutation.webhook.admission.k8s.io/round_0_index_1":
        '{"configuration":"m","webhook":"b","mutated":true}',
      "mutation.webhook.admission.k8s.io/round_1_index_0":
        '{"configuration":"m","webhook":"a","mutated":false}',
    });
  });

  it("does not call a Never webhook again", async () => {
    h.routes.set("/a", addLabel("a", "1"));
    h.routes.set("/b", addLabel("b", "2"));
    h.mutating.push(configuration("Mutating", "m", [webhook("a", h.url("/a")), webhook("b", h.url("/b"))]));
    await h.chain.admit(podAttrs());
    expect(h.reviews("/a")).toHaveLength(1);
  });

  it("does not reinvoke when only the webhook itself changed the object", async () => {
    h.routes.set("/a", addLabel("a", "1"));
    h.routes.set("/noop", (review) => respond(review, { allowed: true }));
    h.mutating.push(
      configuration("Mutating", "m", [
        webhook("a", h.url("/a"), { reinvocationPolicy: "IfNeeded" }),
        webhook("noop", h.url("/noop"), { reinvocationPolicy: "IfNeeded" }),
      ]),
    );
    await h.chain.admit(podAttrs());
    expect(h.reviews("/a")).toHaveLength(1);
    expect(h.reviews("/noop")).toHaveLength(1);
  });

  it("reinvokes only webhooks called before the change, across configurations", async () => {
    h.routes.set("/first", (review) => respond(review, { allowed: true }));
    h.routes.set("/change", addLabel("c", "1"));
    h.routes.set("/after", (review) => respond(review, { allowed: true }));
    h.mutating.push(
      configuration("Mutating", "2-late", [
        webhook("change", h.url("/change")),
        webhook("after", h.url("/after"), { reinvocationPolicy: "IfNeeded" }),
      ]),
      configuration("Mutating", "1-early", [
        webhook("first", h.url("/first"), { reinvocationPolicy: "IfNeeded" }),
      ]),
    );
    await h.chain.admit(podAttrs());
    expect(h.reviews("/first")).toHaveLength(2);
    expect(h.reviews("/change")).toHaveLength(1);
    expect(h.reviews("/after")).toHaveLength(1);
  });

  it("a reinvoked webhook that changes the object gets later IfNeeded webhooks called again", async () => {
    let calls = 0;
    h.routes.set("/a", (review) => {
      calls += 1;
      return patchReply(review, [{ op: "add", path: "/metadata/labels/a", value: String(calls) }]);
    });
    h.routes.set("/b", addLabel("b", "1"));
    h.routes.set("/c", (review) => respond(review, { allowed: true }));
    h.mutating.push(
      configuration("Mutating", "m", [
        webhook("a", h.url("/a"), { reinvocationPolicy: "IfNeeded" }),
        webhook("b", h.url("/b")),
        webhook("c", h.url("/c"), { reinvocationPolicy: "IfNeeded" }),
      ]),
    );
    const result = await h.chain.admit(podAttrs());
    expect(h.reviews("/a")).toHaveLength(2);
    expect(h.reviews("/c")).toHaveLength(2);
    expect(result.allowed && result.object).toMatchObject({ metadata: { labels: { a: "2", b: "1" } } });
  });

  it("never calls a webhook for the first time during reinvocation", async () => {
    h.routes.set("/a", addLabel("a", "1"));
    h.routes.set("/b", addLabel("b", "1"));
    h.routes.set("/only-with-b", (review) => respond(review, { allowed: true }));
    h.mutating.push(
      configuration("Mutating", "m", [
        webhook("gated", h.url("/only-with-b"), {
          reinvocationPolicy: "IfNeeded",
          objectSelector: { matchLabels: { b: "1" } },
        }),
        webhook("a", h.url("/a"), { reinvocationPolicy: "IfNeeded" }),
        webhook("b", h.url("/b")),
      ]),
    );
    await h.chain.admit(podAttrs());
    expect(h.reviews("/only-with-b")).toHaveLength(0);
    expect(h.reviews("/a")).toHaveLength(2);
  });

  it("a denial during reinvocation rejects the request", async () => {
    let calls = 0;
    h.routes.set("/a", (review) => {
      calls += 1;
      return calls === 1
        ? respond(review, { allowed: true })
        : respond(review, { allowed: false, status: { message: "second look" } });
    });
    h.routes.set("/b", addLabel("b", "1"));
    h.mutating.push(
      configuration("Mutating", "m", [
        webhook("a", h.url("/a"), { reinvocationPolicy: "IfNeeded" }),
        webhook("b", h.url("/b")),
      ]),
    );
    const result = await h.chain.admit(podAttrs());
    expect(result).toMatchObject({
      allowed: false,
      status: { message: 'admission webhook "a" denied the request: second look' },
    });
  });
});
