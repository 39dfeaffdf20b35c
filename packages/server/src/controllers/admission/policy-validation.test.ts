import { createEngine } from "@kyverno-ts/engine";
import { describe, expect, it } from "vitest";
import { ExceptionWarnings } from "../../policycache/exception-settings.js";
import { review } from "../../testing/fixtures.js";
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
  const check = async (object: Record<string, unknown>) => {
    const reply = await validation.handleBody(
      "policy",
      JSON.stringify(review({ object: object as never, kind: POLICY_KIND })),
    );
    if (reply.statusCode !== 200) throw new Error(reply.body.message);
    return reply.body.response;
  };

  it("allows a valid policy", async () => {
    expect(
      await check(clusterPolicy({ message: "m", pattern: { metadata: { labels: { team: "?*" } } } })),
    ).toEqual({
      uid: UID,
      allowed: true,
    });
  });

  it("rejects an unknown field with its path", async () => {
    const response = await check(clusterPolicy({ message: "m", patern: { metadata: {} } }));
    expect(response.allowed).toBe(false);
    expect(response.status?.message).toContain('spec.rules[0].validate: unknown field "patern"');
  });

  it("rejects an invalid JMESPath expression found by the engine's compile step, with its path", async () => {
    const response = await check(
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

  it("returns deprecation warnings for an accepted policy", async () => {
    const response = await check(
      clusterPolicy(
        { message: "m", pattern: { metadata: { labels: { team: "?*" } } } },
        { validationFailureAction: "enforce" },
      ),
    );
    expect(response.allowed).toBe(true);
    expect(response.warnings?.length).toBeGreaterThan(0);
  });

  it("answers raw bodies: 400 without a uid, a denial with one", async () => {
    expect((await validation.handleBody("policy", "nope")).statusCode).toBe(400);
    const body = JSON.stringify(
      review({ object: clusterPolicy({ message: "m" }) as never, kind: POLICY_KIND }),
    );
    const reply = await validation.handleBody("policy", body);
    expect(reply.statusCode === 200 && reply.body.response.allowed).toBe(false);
    const del = JSON.stringify(
      review({ operation: "DELETE", object: null, oldObject: clusterPolicy({}) as never }),
    );
    const deleted = await validation.handleBody("policy", del);
    expect(deleted.statusCode === 200 && deleted.body.response.allowed).toBe(true);
  });
});

function generatePolicy(kind: string, data: Record<string, unknown>, synchronize = false) {
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "add-quota" },
    spec: {
      rules: [
        {
          name: "quota",
          match: { any: [{ resources: { kinds: ["Namespace"] } }] },
          generate: {
            apiVersion: "v1",
            kind,
            name: "default",
            namespace: "{{request.object.metadata.name}}",
            synchronize,
            data,
          },
        },
      ],
    },
  };
}

describe("policy validation webhook: updates and the background controller's permissions", () => {
  const BACKGROUND = "system:serviceaccount:kyverno:kyverno-background-controller";
  const asked: string[] = [];
  const validation = createPolicyValidation({
    engine: createEngine(),
    exceptions: { enabled: false },
    backgroundPermissions: {
      user: BACKGROUND,
      decide: async (c) => {
        asked.push(`${c.verb} ${c.kind}`);
        return { allowed: c.kind !== "Secret" };
      },
    },
  });
  const send = async (object: Record<string, unknown>, oldObject?: Record<string, unknown>) => {
    const reply = await validation.handleBody(
      "policy",
      JSON.stringify(
        review({
          object: object as never,
          ...(oldObject ? { operation: "UPDATE" as const, oldObject: oldObject as never } : {}),
          kind: POLICY_KIND,
        }),
      ),
    );
    if (reply.statusCode !== 200) throw new Error(reply.body.message);
    return reply.body.response;
  };

  it("asks for every verb of a generate rule and rejects with upstream's message when one is denied", async () => {
    asked.length = 0;
    expect((await send(generatePolicy("ConfigMap", { data: { a: "1" } }))).allowed).toBe(true);
    expect(asked).toEqual(["create ConfigMap", "update ConfigMap", "get ConfigMap", "delete ConfigMap"]);
    const denied = await send(generatePolicy("Secret", { data: { a: "MQ==" } }));
    expect(denied.allowed).toBe(false);
    expect(denied.status?.message).toBe(
      `path: spec.rules[0].generate..: ${BACKGROUND} does not have permissions to 'create' resource v1/Secret//{{request.object.metadata.name}}. Grant proper permissions to the background controller`,
    );
  });

  it("rejects a change of a generate rule's immutable fields and warns about data changes without synchronize", async () => {
    const old = generatePolicy("ConfigMap", { data: { a: "1" } });
    const renamed = generatePolicy("ConfigMap", { data: { a: "1" } });
    (renamed.spec.rules[0] as { generate: { name: string } }).generate.name = "other";
    const rejected = await send(renamed, old);
    expect(rejected.allowed).toBe(false);
    expect(rejected.status?.message).toBe("change of immutable fields for a generate rule is disallowed");
    const changed = await send(generatePolicy("ConfigMap", { data: { a: "2" } }), old);
    expect(changed.allowed).toBe(true);
    expect(changed.warnings?.some((w) => w.includes("synchronize is false"))).toBe(true);
  });
});

describe("exception validation webhook", () => {
  const validation = createPolicyValidation({
    engine: createEngine(),
    exceptions: { enabled: true, namespace: "kyverno-exceptions" },
  });
  const check = async (object: Record<string, unknown>) => {
    const reply = await validation.handleBody(
      "exception",
      JSON.stringify(review({ object: object as never, kind: EXCEPTION_KIND })),
    );
    if (reply.statusCode !== 200) throw new Error(reply.body.message);
    return reply.body.response;
  };

  it("allows a valid exception in the exception namespace", async () => {
    expect(await check(policyException("kyverno-exceptions"))).toEqual({ uid: UID, allowed: true });
  });

  it("warns, as upstream, when the exception lives in another namespace", async () => {
    expect(await check(policyException("default"))).toEqual({
      uid: UID,
      allowed: true,
      warnings: [ExceptionWarnings.namespaceMismatch],
    });
  });

  it("warns, as upstream, that exceptions are not processed while --enablePolicyException is off", async () => {
    const off = createPolicyValidation({ engine: createEngine(), exceptions: { enabled: false } });
    const reply = await off.handleBody(
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
    const unset = await anywhere.handleBody(
      "exception",
      JSON.stringify(review({ object: policyException("default") as never, kind: EXCEPTION_KIND })),
    );
    expect(unset.statusCode === 200 && unset.body.response.warnings).toEqual([
      "The exceptionNamespace flag is not set",
    ]);
  });

  it("rejects an invalid exception with the field path", async () => {
    const response = await check(
      policyException("kyverno-exceptions", { exceptions: [{ policyName: "x" }] }),
    );
    expect(response.allowed).toBe(false);
    expect(response.status?.message).toMatch(/spec\.exceptions\[0\]/);
  });
});
