import { type CelPolicy, type JsonValue, loadCelPolicy } from "@kyverno-ts/api";
import { createCelEngine } from "@kyverno-ts/engine";
import { describe, expect, it } from "vitest";
import { createCelPolicyStore } from "../../policycache/cel-policy-store.js";
import { fakeClock, pod, recordingLogger, review } from "../../testing/fixtures.js";
import { createAdmissionCore } from "./admission-core.js";
import {
  type CelWebhookRoute,
  celWebhookPath,
  createCelAdmissionHandler,
  parseCelWebhookPath,
} from "./cel-handler.js";
import { defaultKyvernoConfig } from "./filters.js";
import { createBoundedResultQueue } from "./results.js";

const VPOL_FAIL: CelWebhookRoute = { type: "validate", failurePolicy: "Fail" };

function celPolicy(doc: Record<string, unknown>): CelPolicy {
  const loaded = loadCelPolicy(doc as JsonValue, { file: "test" });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return loaded.value;
}

const podRules = {
  resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
};

function requireTeam(name: string, spec: Record<string, unknown> = {}): CelPolicy {
  return celPolicy({
    apiVersion: "policies.kyverno.io/v1",
    kind: "ValidatingPolicy",
    metadata: { name },
    spec: {
      matchConstraints: podRules,
      validations: [
        {
          expression: "has(object.metadata.labels) && 'team' in object.metadata.labels",
          message: "team label required",
        },
      ],
      ...spec,
    },
  });
}

function setup(...policies: CelPolicy[]) {
  const clock = fakeClock();
  const engine = createCelEngine({ clock: clock });
  const store = createCelPolicyStore({ engine });
  for (const p of policies) store.set(p);
  const sink = createBoundedResultQueue({ capacity: 10 });
  const handler = createCelAdmissionHandler({
    engine,
    store,
    clock,
    logger: recordingLogger(),
    config: defaultKyvernoConfig,
    sink,
  });
  const call = (route: CelWebhookRoute, object = pod({ name: "web", namespace: "shop" }), dryRun = false) => {
    const reply = handler.handleBody(route, JSON.stringify(review({ object, dryRun })));
    if (reply.statusCode !== 200) throw new Error("expected an AdmissionReview");
    return (
      reply.body as {
        response: { allowed: boolean; status?: { message?: string }; warnings?: string[]; patch?: string };
      }
    ).response;
  };
  return { call, sink, store };
}

describe("CEL webhook paths", () => {
  it("are upstream's, with a fine-grained path per policy, and parse back", () => {
    expect(celWebhookPath(VPOL_FAIL)).toBe("/vpol/fail");
    expect(celWebhookPath({ type: "mutate", failurePolicy: "Ignore" })).toBe("/mpol/ignore");
    expect(celWebhookPath({ type: "validate", failurePolicy: "Fail", policy: "p" })).toBe(
      "/vpol/fail/finegrained/p",
    );
    expect(parseCelWebhookPath("/ivpol/ignore")).toEqual({ type: "imageValidate", failurePolicy: "Ignore" });
    expect(parseCelWebhookPath("/vpol/fail/finegrained/p")).toEqual({ ...VPOL_FAIL, policy: "p" });
    expect(parseCelWebhookPath("/validate/fail")).toBeUndefined();
  });
});

describe("CEL admission handler", () => {
  it("denies under Deny with upstream's message, and allows what passes", () => {
    const { call } = setup(requireTeam("require-team", { validationActions: ["Deny"] }));
    const denied = call(VPOL_FAIL);
    expect(denied.allowed).toBe(false);
    expect(denied.status?.message).toBe("Policy require-team failed: team label required");
    expect(call(VPOL_FAIL, pod({ name: "web", namespace: "shop", labels: { team: "a" } })).allowed).toBe(
      true,
    );
  });

  it("warns under Warn, only reports under Audit, and hands results to the sink (not for a dry run)", () => {
    const { call, sink } = setup(
      requireTeam("warned", { validationActions: ["Warn"] }),
      requireTeam("audited", { validationActions: ["Audit"] }),
    );
    const answer = call(VPOL_FAIL);
    expect(answer.allowed).toBe(true);
    expect(answer.warnings).toEqual(["Policy warned failed: team label required"]);
    const [result] = sink.drain();
    expect(result?.responses.map((r) => [r.policy.name, r.rules[0]?.status])).toEqual([
      ["audited", "fail"],
      ["warned", "fail"],
    ]);
    call(VPOL_FAIL, undefined, true);
    expect(sink.size).toBe(0);
  });

  it("lets an evaluation error block under failurePolicy Fail and warn under Ignore", () => {
    const broken = (name: string, failurePolicy: "Fail" | "Ignore") =>
      requireTeam(name, {
        failurePolicy,
        validations: [{ expression: "object.metadata.labels['missing'] == 'x'" }],
      });
    const fail = setup(broken("strict", "Fail")).call(VPOL_FAIL);
    expect(fail.allowed).toBe(false);
    expect(fail.status?.message).toMatch(/^Policy strict error: /);
    const ignore = setup(broken("lenient", "Ignore")).call({ type: "validate", failurePolicy: "Ignore" });
    expect(ignore.allowed).toBe(true);
    expect(ignore.warnings?.[0]).toMatch(/^Policy lenient error: /);
  });

  it("answers an ImageValidatingPolicy with an error, never a pass", () => {
    const ivpol = celPolicy({
      apiVersion: "policies.kyverno.io/v1",
      kind: "ImageValidatingPolicy",
      metadata: { name: "verify" },
      spec: { matchConstraints: podRules, validationActions: ["Deny"], validations: [] },
    });
    const { call, store } = setup(ivpol);
    expect(store.status("ImageValidatingPolicy/verify")?.ready).toBe(false);
    const answer = call({ type: "imageValidate", failurePolicy: "Fail" });
    expect(answer.allowed).toBe(false);
    expect(answer.status?.message).toContain("image verification is not implemented");
  });

  it("patches with MutatingPolicies in order, each seeing the object the ones before left", () => {
    const mutating = (name: string, expression: string) =>
      celPolicy({
        apiVersion: "policies.kyverno.io/v1",
        kind: "MutatingPolicy",
        metadata: { name },
        spec: {
          matchConstraints: podRules,
          mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression } }],
        },
      });
    const { call } = setup(
      mutating("a-owner", "Object{metadata: Object.metadata{labels: {'owner': 'platform'}}}"),
      mutating(
        "b-copy",
        "Object{metadata: Object.metadata{labels: {'copy': object.metadata.labels['owner']}}}",
      ),
    );
    const answer = call({ type: "mutate", failurePolicy: "Fail" });
    expect(answer.allowed).toBe(true);
    const patch = JSON.parse(Buffer.from(answer.patch ?? "", "base64").toString()) as unknown[];
    expect(patch).toEqual([
      { op: "add", path: "/metadata/labels", value: { owner: "platform" } },
      { op: "add", path: "/metadata/labels/copy", value: "platform" },
    ]);
  });

  it("serves a policy with its own timeout on its fine-grained path only", () => {
    const { call } = setup(
      requireTeam("slow", { validationActions: ["Deny"], webhookConfiguration: { timeoutSeconds: 20 } }),
    );
    expect(call(VPOL_FAIL).allowed).toBe(true);
    expect(call({ ...VPOL_FAIL, policy: "slow" }).allowed).toBe(false);
  });
});

describe("CEL policy metrics", () => {
  it("records kyverno_validating_policy_execution_duration_seconds with upstream's labels", async () => {
    const clock = fakeClock();
    const core = createAdmissionCore({ config: defaultKyvernoConfig, clock, logger: recordingLogger() });
    core.celPolicies.set(requireTeam("require-team", { validationActions: ["Deny"] }));
    core.celHandler.handleBody(
      VPOL_FAIL,
      JSON.stringify(review({ object: pod({ name: "web", namespace: "shop" }) })),
    );
    expect(await core.metrics.render()).toContain(
      'kyverno_validating_policy_execution_duration_seconds_count{policy_background_mode="true",policy_name="require-team",policy_validation_mode="enforce",resource_kind="Pod",resource_namespace="shop",resource_request_operation="create",execution_cause="admission_request",result="FAIL"} 1',
    );
  });
});

describe("GeneratingPolicies at admission", () => {
  const GPOL_FAIL: CelWebhookRoute = { type: "generate", failurePolicy: "Fail" };
  const gpol = (kind: string, namespace?: string, sync = false) =>
    celPolicy({
      apiVersion: "policies.kyverno.io/v1",
      kind,
      metadata: { name: "companion", ...(namespace ? { namespace } : {}) },
      spec: {
        ...(sync ? { evaluation: { synchronize: { enabled: true } } } : {}),
        matchConstraints: podRules,
        matchConditions: [{ name: "web", expression: "object.metadata.name.startsWith('web')" }],
        generate: [{ expression: "generator.Apply(object.metadata.namespace, [])" }],
      },
    });

  function generating(...policies: CelPolicy[]) {
    const engine = createCelEngine();
    const store = createCelPolicyStore({ engine });
    for (const p of policies) store.set(p);
    const offered: Array<() => readonly unknown[]> = [];
    const handler = createCelAdmissionHandler({
      engine,
      store,
      clock: fakeClock(),
      logger: recordingLogger(),
      config: defaultKyvernoConfig,
      background: { offer: (thunk) => offered.push(thunk) },
    });
    const call = (object = pod({ name: "web", namespace: "shop" }), dryRun = false) => {
      // With matchConditions the policies have a webhook of their own (`/gpol/fail/finegrained/companion`).
      const route: CelWebhookRoute = { ...GPOL_FAIL, policy: "companion" };
      const reply = handler.handleBody(route, JSON.stringify(review({ object, dryRun })));
      return (reply.body as { response: { allowed: boolean } }).response;
    };
    return { call, offered };
  }

  it("are served on /gpol, admit, and hand a cel-generate UpdateRequest intent to the background controller", () => {
    expect(parseCelWebhookPath("/gpol/fail")).toEqual(GPOL_FAIL);
    const { call, offered } = generating(
      gpol("GeneratingPolicy"),
      gpol("NamespacedGeneratingPolicy", "shop"),
    );
    expect(call().allowed).toBe(true);
    expect(offered).toHaveLength(1);
    expect(offered[0]?.()).toMatchObject([
      {
        requestType: "cel-generate",
        policy: "companion",
        trigger: { kind: "Pod", namespace: "shop", name: "web" },
        deleteDownstream: false,
      },
      { requestType: "cel-generate", policy: "shop/companion" },
    ]);
  });

  it("hands nothing over for a dry run, nor intents for a trigger the policy does not match", () => {
    const { call, offered } = generating(gpol("GeneratingPolicy"));
    call(pod({ name: "web", namespace: "shop" }), true);
    expect(offered).toHaveLength(0);
    call(pod({ name: "db", namespace: "shop" }));
    expect(offered[0]?.()).toEqual([]);
  });
});

describe("mutate-existing MutatingPolicies at admission", () => {
  const MPOL_FAIL: CelWebhookRoute = { type: "mutate", failurePolicy: "Fail" };
  const mpol = (name: string, mutateExisting: boolean) =>
    celPolicy({
      apiVersion: "policies.kyverno.io/v1",
      kind: "MutatingPolicy",
      metadata: { name },
      spec: {
        ...(mutateExisting ? { evaluation: { mutateExisting: { enabled: true } } } : {}),
        matchConstraints: podRules,
        ...(mutateExisting
          ? {
              targetMatchConstraints: {
                resourceRules: [
                  { apiGroups: [""], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["configmaps"] },
                ],
              },
            }
          : {}),
        mutations: [
          {
            patchType: "ApplyConfiguration",
            applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'seen': 'yes'}}}" },
          },
        ],
      },
    });

  it("admit the trigger unpatched and hand a cel-mutate intent over; plain MutatingPolicies still patch", () => {
    const engine = createCelEngine();
    const store = createCelPolicyStore({ engine });
    store.set(mpol("stamp", true));
    const offered: Array<() => readonly unknown[]> = [];
    const handler = createCelAdmissionHandler({
      engine,
      store,
      clock: fakeClock(),
      logger: recordingLogger(),
      config: defaultKyvernoConfig,
      background: { offer: (thunk) => offered.push(thunk) },
    });
    const call = (dryRun = false) =>
      (
        handler.handleBody(
          MPOL_FAIL,
          JSON.stringify(review({ object: pod({ name: "web", namespace: "shop" }), dryRun })),
        ).body as { response: { allowed: boolean; patch?: string } }
      ).response;
    expect(store.status("MutatingPolicy/stamp")).toMatchObject({ ready: true });
    const answer = call();
    expect(answer).toMatchObject({ allowed: true });
    expect(answer.patch).toBeUndefined();
    expect(offered).toHaveLength(1);
    expect(offered[0]?.()).toMatchObject([
      {
        requestType: "cel-mutate",
        policy: "stamp",
        rules: ["stamp"],
        trigger: { kind: "Pod", namespace: "shop", name: "web" },
        operation: "CREATE",
      },
    ]);
    call(true);
    expect(offered).toHaveLength(1);
    store.set(mpol("label", false));
    expect(call().patch).toBeDefined();
    expect(offered).toHaveLength(2);
  });
});
