import { createEngine } from "@kyverno-ts/engine";
import { describe, expect, it } from "vitest";
import { ExceptionWarnings } from "../policycache/exception-settings.js";
import { review } from "../testing/fixtures.js";
import { createPolicyValidation } from "./policy-validation.js";

const UID = "705ab4f5-6393-11e8-b7cc-42010a800002";
const POLICY_KIND = { group: "kyverno.io", version: "v1", kind: "ClusterPolicy" };
const EXCEPTION_KIND = { group: "kyverno.io", version: "v2", kind: "PolicyException" };

function clusterPolicy(validate: Record<string, unknown>, extraSpec: Record<string, unknown> = {}) {
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "require-labels" },
    spec: {
      ...extraSpec,
      rules: [{ name: "check-team", match: { any: [{ resources: { kinds: ["Pod"] } }] }, validate }],
    },
  };
}

function policyException(namespace: string, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: "kyverno.io/v2",
    kind: "PolicyException",
    metadata: { name: "allow", namespace },
    spec: {
      exceptions: [{ policyName: "require-labels", ruleNames: ["check-team"] }],
      match: { any: [{ resources: { kinds: ["Pod"] } }] },
      ...spec,
    },
  };
}

describe("policy validation webhook", () => {
  const validation = createPolicyValidation({
    engine: createEngine(),
    exceptions: { enabled: true, namespace: "kyverno-exceptions" },
  });
  const check = (object: Record<string, unknown>) => {
    const reply = validation.handleBody(
      "policy",
      JSON.stringify(review({ object: object as never, kind: POLICY_KIND })),
    );
    if (reply.statusCode !== 200) throw new Error(reply.body.message);
    return reply.body.response;
  };

  it("allows a valid policy", () => {
    expect(check(clusterPolicy({ message: "m", pattern: { metadata: { labels: { team: "?*" } } } }))).toEqual(
      {
        uid: UID,
        allowed: true,
      },
    );
  });

  it("rejects an unknown field with its path", () => {
    const response = check(clusterPolicy({ message: "m", patern: { metadata: {} } }));
    expect(response.allowed).toBe(false);
    expect(response.status?.message).toContain('spec.rules[0].validate: unknown field "patern"');
  });

  it("rejects an invalid JMESPath expression found by the engine's compile step, with its path", () => {
    const response = check(
      clusterPolicy({
        message: "m",
        deny: {
          conditions: { any: [{ key: "{{ request.object | nosuch(@) }}", operator: "Equals", value: 1 }] },
        },
      }),
    );
    expect(response.allowed).toBe(false);
    expect(response.status?.message).toMatch(
      /^spec\.rules\[0\]\.validate\.deny\.conditions\.any\[0\]\.key: invalid JMESPath expression/,
    );
  });

  it("returns deprecation warnings for an accepted policy", () => {
    const response = check(
      clusterPolicy(
        { message: "m", pattern: { metadata: { labels: { team: "?*" } } } },
        { validationFailureAction: "enforce" },
      ),
    );
    expect(response.allowed).toBe(true);
    expect(response.warnings?.length).toBeGreaterThan(0);
  });

  it("answers raw bodies: 400 without a uid, a denial with one", () => {
    expect(validation.handleBody("policy", "nope").statusCode).toBe(400);
    const body = JSON.stringify(
      review({ object: clusterPolicy({ message: "m" }) as never, kind: POLICY_KIND }),
    );
    const reply = validation.handleBody("policy", body);
    expect(reply.statusCode === 200 && reply.body.response.allowed).toBe(false);
    const del = JSON.stringify(
      review({ operation: "DELETE", object: null, oldObject: clusterPolicy({}) as never }),
    );
    const deleted = validation.handleBody("policy", del);
    expect(deleted.statusCode === 200 && deleted.body.response.allowed).toBe(true);
  });
});

describe("exception validation webhook", () => {
  const validation = createPolicyValidation({
    engine: createEngine(),
    exceptions: { enabled: true, namespace: "kyverno-exceptions" },
  });
  const check = (object: Record<string, unknown>) => {
    const reply = validation.handleBody(
      "exception",
      JSON.stringify(review({ object: object as never, kind: EXCEPTION_KIND })),
    );
    if (reply.statusCode !== 200) throw new Error(reply.body.message);
    return reply.body.response;
  };

  it("allows a valid exception in the exception namespace", () => {
    expect(check(policyException("kyverno-exceptions"))).toEqual({ uid: UID, allowed: true });
  });

  it("warns, as upstream, when the exception lives in another namespace", () => {
    expect(check(policyException("default"))).toEqual({
      uid: UID,
      allowed: true,
      warnings: [ExceptionWarnings.namespaceMismatch],
    });
  });

  it("warns, as upstream, that exceptions are not processed while --enablePolicyException is off", () => {
    const off = createPolicyValidation({ engine: createEngine(), exceptions: { enabled: false } });
    const reply = off.handleBody(
      "exception",
      JSON.stringify(
        review({ object: policyException("kyverno-exceptions") as never, kind: EXCEPTION_KIND }),
      ),
    );
    expect(reply.statusCode === 200 && reply.body.response).toEqual({
      uid: UID,
      allowed: true,
      warnings: ["PolicyException resources would not be processed until it is enabled."],
    });
    const anywhere = createPolicyValidation({ engine: createEngine(), exceptions: { enabled: true } });
    const unset = anywhere.handleBody(
      "exception",
      JSON.stringify(review({ object: policyException("default") as never, kind: EXCEPTION_KIND })),
    );
    expect(unset.statusCode === 200 && unset.body.response.warnings).toEqual([
      "The exceptionNamespace flag is not set",
    ]);
  });

  it("rejects an invalid exception with the field path", () => {
    const response = check(policyException("kyverno-exceptions", { exceptions: [{ policyName: "x" }] }));
    expect(response.allowed).toBe(false);
    expect(response.status?.message).toMatch(/spec\.exceptions\[0\]/);
  });
});
