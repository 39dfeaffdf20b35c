import type { JsonValue, Policy } from "@kyverno-ts/api";
import { createEngine, type Engine, type LoadResult } from "@kyverno-ts/engine";
import { describe, expect, it } from "vitest";
import type { ScanContext } from "../../external-data/scan-context.js";
import { createAdmissionMetrics } from "../../metrics/metrics.js";
import { createPolicyCache } from "../../policycache/policy-cache.js";
import {
  exception,
  type FakeClock,
  fakeClock,
  immediate,
  pod,
  podValidatePolicy,
  policy,
  recordingLogger,
  review,
} from "../../testing/fixtures.js";
import { defaultKyvernoConfig } from "./filters.js";
import {
  type AdmissionHandlerOptions,
  createAdmissionHandler,
  deadlineFor,
  type WebhookRoute,
} from "./handler.js";
import { createBoundedResultQueue } from "./results.js";

const VALIDATE_FAIL: WebhookRoute = { type: "validate", failurePolicy: "Fail" };
const VALIDATE_IGNORE: WebhookRoute = { type: "validate", failurePolicy: "Ignore" };

function setup(
  policies: Policy[],
  options: { clock?: FakeClock; engine?: Engine } & Partial<AdmissionHandlerOptions> = {},
) {
  const clock = options.clock ?? fakeClock();
  const engine = options.engine ?? createEngine({ clock: clock });
  const metrics = createAdmissionMetrics({ version: "test" });
  const cache = createPolicyCache({ engine: createEngine({ clock: clock }), metrics });
  for (const p of policies) expect(cache.set(p).ready).toBe(true);
  const sink = createBoundedResultQueue();
  const logger = recordingLogger();
  const handler = createAdmissionHandler({
    config: defaultKyvernoConfig(),
    sink,
    metrics,
    logger,
    ...options,
    engine,
    policyCache: cache,
    clock,
  });
  const call = (route: WebhookRoute, body: unknown) => {
    const reply = immediate(handler.handleBody(route, JSON.stringify(body)));
    if (reply.statusCode !== 200) throw new Error(`HTTP ${reply.statusCode}: ${reply.body.message}`);
    return reply.body.response;
  };
  return { handler, cache, sink, metrics, logger, clock, call };
}

describe("admission error metrics", () => {
  it("counts unreadable reviews and answers past the deadline in kyverno_admission_errors_total", async () => {
    const { handler, metrics, clock } = setup([podValidatePolicy({ name: "p" })]);
    handler.handleBody(VALIDATE_FAIL, '{"request": {"uid": "u1"');
    // A review that waited in the queue longer than the whole budget.
    immediate(
      handler.handleBody(VALIDATE_FAIL, JSON.stringify(review({})), {
        receivedAt: clock.monotonic() - handler.deadlineMs - 1,
      }),
    );
    immediate(handler.handleBody(VALIDATE_FAIL, JSON.stringify(review({}))));
    const text = await metrics.render();
    const errors = (type: string) =>
      text.match(
        new RegExp(
          `^kyverno_admission_errors_total\\{request_webhook="ValidatingWebhookConfiguration",error_type="${type}"\\} (\\d+)$`,
          "m",
        ),
      )?.[1];
    expect([errors("bad_request"), errors("timeout"), errors("internal")]).toEqual(["1", "1", "0"]);
  });
});

describe("validate webhook", () => {
  it("denies an Enforce failure with upstream's message shape and echoes the uid", () => {
    const { call } = setup([podValidatePolicy({ name: "disallow-privileged" })]);
    const response = call(
      VALIDATE_FAIL,
      review({ uid: "1d1e5c1e-aaaa-bbbb-cccc-000000000001", object: pod({ privileged: true }) }),
    );
    expect(response).toEqual({
      uid: "1d1e5c1e-aaaa-bbbb-cccc-000000000001",
      allowed: false,
      status: {
        status: "Failure",
        message:
          "\n\nresource Pod/default/x was blocked due to the following policies\n\n" +
          "disallow-privileged:\n" +
          "  check-privileged: 'validation error: privileged containers are not allowed. rule check-privileged failed at path /spec/containers/0/securityContext/privileged/'\n",
      },
    });
  });

  it("lists every blocking policy and rule, sorted, and allows a compliant Pod", () => {
    const { call } = setup([
      podValidatePolicy({ name: "zeta", rule: "r2" }),
      podValidatePolicy({ name: "alpha", rule: "r1", message: "no privileged" }),
    ]);
    const denied = call(VALIDATE_FAIL, review({ object: pod({ privileged: true }) }));
    expect(denied.status?.message).toMatch(/policies\n\nalpha:\n {2}r1: .*\nzeta:\n {2}r2: .*\n$/);
    expect(call(VALIDATE_FAIL, review({ object: pod({ privileged: false }) }))).toEqual({
      uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
      allowed: true,
    });
  });

  it("allows an Audit failure, with a warning only when the policy sets emitWarning", () => {
    const quiet = setup([podValidatePolicy({ name: "audit-quiet", action: "Audit" })]);
    expect(quiet.call(VALIDATE_FAIL, review({ object: pod({ privileged: true }) }))).toEqual({
      uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
      allowed: true,
    });
    const loud = setup([podValidatePolicy({ name: "audit-loud", action: "Audit", emitWarning: true })]);
    expect(loud.call(VALIDATE_FAIL, review({ object: pod({ privileged: true }) })).warnings).toEqual([
      "policy audit-loud.check-privileged: validation error: privileged containers are not allowed. rule check-privileged failed at path /spec/containers/0/securityContext/privileged/",
    ]);
  });

  it("hands results of admitted requests to the sink, but never for dryRun", () => {
    const { call, sink } = setup([podValidatePolicy({ name: "audit", action: "Audit" })]);
    call(VALIDATE_FAIL, review({ object: pod({ privileged: true }), dryRun: true }));
    expect(sink.size).toBe(0);
    call(VALIDATE_FAIL, review({ object: pod({ privileged: true }) }));
    const [result] = sink.drain();
    expect(result?.resource).toMatchObject({ kind: "Pod", namespace: "default", name: "x" });
    expect(result?.responses[0]?.rules[0]?.status).toBe("fail");
  });

  it("stamps every policy result of one request with the same time, as upstream stamps a request", () => {
    // Every monotonic reading advances the clock by a second, so policies timed one after the other
    // would carry different times if each read the clock itself.
    const { call, sink } = setup(
      [
        podValidatePolicy({ name: "first", action: "Audit" }),
        podValidatePolicy({ name: "second", action: "Audit" }),
      ],
      { clock: fakeClock(1000) },
    );
    call(VALIDATE_FAIL, review({ object: pod({ privileged: true }) }));
    const [result] = sink.drain();
    const stamps = result?.responses.map((r) => r.timestamp) ?? [];
    expect(stamps).toHaveLength(2);
    expect(new Set(stamps).size).toBe(1);
  });

  it("still denies a dryRun request that violates an Enforce policy", () => {
    const { call, sink } = setup([podValidatePolicy({ name: "enforce" })]);
    expect(call(VALIDATE_FAIL, review({ object: pod({ privileged: true }), dryRun: true })).allowed).toBe(
      false,
    );
    expect(sink.size).toBe(0);
  });

  it("on UPDATE lets an existing violation through unless allowExistingViolations is false", () => {
    const update = (oldPrivileged: boolean) =>
      review({
        operation: "UPDATE",
        object: pod({ privileged: true }),
        oldObject: pod({ privileged: oldPrivileged }),
      });
    const { call } = setup([podValidatePolicy({ name: "p" })]);
    expect(call(VALIDATE_FAIL, update(true)).allowed).toBe(true);
    expect(call(VALIDATE_FAIL, update(false)).allowed).toBe(false);
    const strict = setup([podValidatePolicy({ name: "p", allowExistingViolations: false })]);
    expect(strict.call(VALIDATE_FAIL, update(true)).allowed).toBe(false);
  });

  it("evaluates DELETE requests against oldObject", () => {
    const protectedPods = podValidatePolicy({
      name: "protect",
      rule: "no-delete",
      operations: ["DELETE"],
      message: "protected pods cannot be deleted",
      deny: {
        conditions: {
          any: [
            {
              key: "{{ request.oldObject.metadata.labels.protected || '' }}",
              operator: "Equals",
              value: "yes",
            },
          ],
        },
      },
    });
    const { call } = setup([protectedPods]);
    const del = (labels: Record<string, string>) =>
      review({ operation: "DELETE", object: null, oldObject: pod({ name: "keep", labels }) });
    const denied = call(VALIDATE_FAIL, del({ protected: "yes" }));
    expect(denied.status?.message).toContain("resource Pod/default/keep was blocked");
    expect(denied.status?.message).toContain("no-delete: protected pods cannot be deleted");
    expect(call(VALIDATE_FAIL, del({})).allowed).toBe(true);
  });

  it("matches a kubectl scale request by the addressed kind and subresource (Deployment/scale), not by its Scale object", () => {
    const maxReplicas = policy({
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      metadata: { name: "max-replicas" },
      spec: {
        validationFailureAction: "Enforce",
        background: false,
        rules: [
          {
            name: "no-scale",
            match: { any: [{ resources: { kinds: ["Deployment/scale"], operations: ["UPDATE"] } }] },
            validate: {
              message:
                "scaling {{ request.name }} to {{ request.object.spec.replicas }} replicas is more than 3",
              deny: {
                conditions: {
                  any: [{ key: "{{ request.object.spec.replicas }}", operator: "GreaterThan", value: 3 }],
                },
              },
            },
          },
        ],
      },
    });
    const scale = (replicas: number) => ({
      apiVersion: "autoscaling/v1",
      kind: "Scale",
      metadata: { name: "web", namespace: "default" },
      spec: { replicas },
    });
    const scaleReview = (resource: { group: string; version: string; resource: string }) => {
      const r = review({
        operation: "UPDATE",
        object: scale(5),
        oldObject: scale(3),
        kind: { group: "autoscaling", version: "v1", kind: "Scale" },
      }) as { request: Record<string, unknown> };
      r.request.resource = resource;
      r.request.subResource = "scale";
      return r;
    };
    const { call } = setup([maxReplicas]);
    const denied = call(
      VALIDATE_FAIL,
      scaleReview({ group: "apps", version: "v1", resource: "deployments" }),
    );
    expect(denied.allowed).toBe(false);
    expect(denied.status?.message).toContain("no-scale: scaling web to 5 replicas is more than 3");
    // The scale subresource of a StatefulSet carries the same Scale object: not matched.
    expect(
      call(VALIDATE_FAIL, scaleReview({ group: "apps", version: "v1", resource: "statefulsets" })).allowed,
    ).toBe(true);
  });

  it("only evaluates policies whose failurePolicy matches the endpoint", () => {
    const { call } = setup([podValidatePolicy({ name: "ignored", failurePolicy: "Ignore" })]);
    expect(call(VALIDATE_FAIL, review({ object: pod({ privileged: true }) })).allowed).toBe(true);
    expect(call(VALIDATE_IGNORE, review({ object: pod({ privileged: true }) })).allowed).toBe(false);
    expect(call({ type: "validate" }, review({ object: pod({ privileged: true }) })).allowed).toBe(false);
  });

  it("follows the policy's failurePolicy when a rule errors, and counts the error", async () => {
    const erroring = (failurePolicy: "Fail" | "Ignore") =>
      podValidatePolicy({
        name: `broken-${failurePolicy.toLowerCase()}`,
        failurePolicy,
        // A division by zero fails at evaluation (a variable nothing declares is rejected at load).
        deny: {
          conditions: { any: [{ key: "{{ divide(`1`, `0`) }}", operator: "Equals", value: "x" }] },
        },
      });
    const { call, metrics } = setup([erroring("Fail"), erroring("Ignore")]);
    const denied = call(VALIDATE_FAIL, review({}));
    expect(denied.allowed).toBe(false);
    expect(denied.status?.message).toContain("broken-fail:\n  check-privileged:");
    expect(call(VALIDATE_IGNORE, review({})).allowed).toBe(true);
    const audit = setup([
      { ...erroring("Fail"), spec: { ...erroring("Fail").spec, validationFailureAction: "Audit" } },
    ]);
    expect(audit.call(VALIDATE_FAIL, review({})).allowed).toBe(true);
    const text = await metrics.render();
    expect(text).toMatch(
      /kyverno_policy_results_total\{[^}]*policy_name="broken-ignore"[^}]*rule_result="error"[^}]*\} 1/,
    );
  });

  it("answers an image verification rule with an error under its failure policy: never a silent pass", () => {
    const verify = (failurePolicy: "Fail" | "Ignore"): Policy => {
      const base = podValidatePolicy({ name: `verify-${failurePolicy.toLowerCase()}`, failurePolicy });
      const rule = { ...(base.spec.rules[0] as Policy["spec"]["rules"][0]) };
      delete rule.validate;
      rule.verifyImages = [{ imageReferences: ["*"], attestors: [] }];
      return { ...base, spec: { ...base.spec, rules: [rule] } };
    };
    const { call, cache } = setup([]);
    for (const p of [verify("Fail"), verify("Ignore")]) expect(cache.set(p).ready).toBe(false);
    const denied = call(VALIDATE_FAIL, review({ object: pod({}) }));
    expect(denied.allowed).toBe(false);
    expect(denied.status?.message).toContain(
      "verify-fail:\n  check-privileged: 'verifyImages is not supported by kyverno-ts yet",
    );
    expect(call(VALIDATE_IGNORE, review({ object: pod({}) })).allowed).toBe(true);
  });

  it("evaluates a validate.cel rule (the policy is Ready): a compliant Pod is admitted, a violating one denied", () => {
    const celPolicy = policy({
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      metadata: { name: "cel-no-privileged" },
      spec: {
        validationFailureAction: "Enforce",
        background: true,
        rules: [
          {
            name: "no-privileged",
            match: { any: [{ resources: { kinds: ["Pod"] } }] },
            validate: {
              cel: {
                expressions: [
                  {
                    expression:
                      "object.spec.containers.all(c, !has(c.securityContext) || !has(c.securityContext.privileged) || c.securityContext.privileged == false)",
                    message: "privileged containers are not allowed",
                  },
                ],
              },
            },
          },
        ],
      },
    });
    // setup() expects every policy to be Ready.
    const { call } = setup([celPolicy]);
    expect(call(VALIDATE_FAIL, review({ object: pod({ privileged: false }) })).allowed).toBe(true);
    expect(call(VALIDATE_FAIL, review({ object: pod({}) })).allowed).toBe(true);
    const denied = call(VALIDATE_FAIL, review({ object: pod({ privileged: true }) }));
    expect(denied.allowed).toBe(false);
    expect(denied.status?.message).toContain("no-privileged: privileged containers are not allowed");
  });

  it("turns an engine crash into a policy error instead of throwing", () => {
    const clock = fakeClock();
    const real = createEngine({ clock: clock });
    const engine: Engine = {
      ...real,
      validate: () => {
        throw new RangeError("Maximum call stack size exceeded");
      },
    };
    const { call } = setup([podValidatePolicy({ name: "p" })], { clock, engine });
    const response = call(VALIDATE_FAIL, review({}));
    expect(response.allowed).toBe(false);
    expect(response.status?.message).toContain(
      "p:\n  '-': 'policy evaluation failed: Maximum call stack size exceeded'\n",
    );
  });

  it("skips PolicyExceptions' rules, requesters and resources excluded by Kyverno's ConfigMap", () => {
    const { call, cache } = setup([podValidatePolicy({ name: "p" })]);
    const bad = { object: pod({ privileged: true }) };
    expect(call(VALIDATE_FAIL, review({ ...bad, groups: ["system:nodes"] })).allowed).toBe(true);
    expect(
      call(VALIDATE_FAIL, review({ object: pod({ privileged: true, namespace: "kube-system" }) })).allowed,
    ).toBe(true);
    expect(call(VALIDATE_FAIL, review(bad)).allowed).toBe(false);
    cache.setExceptions([
      exception({
        apiVersion: "kyverno.io/v2",
        kind: "PolicyException",
        metadata: { name: "allow-x", namespace: "default" },
        spec: {
          exceptions: [{ policyName: "p", ruleNames: ["check-privileged"] }],
          match: { any: [{ resources: { kinds: ["Pod"], names: ["x"] } }] },
        },
      }),
    ]);
    expect(call(VALIDATE_FAIL, review(bad)).allowed).toBe(true);
  });

  it("allows objects of kinds no policy names without evaluating anything", async () => {
    const { call, metrics } = setup([podValidatePolicy({ name: "p" })]);
    const cm = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c", namespace: "default" },
      data: {},
    };
    expect(
      call(VALIDATE_FAIL, review({ object: cm, kind: { group: "", version: "v1", kind: "ConfigMap" } }))
        .allowed,
    ).toBe(true);
    expect(await metrics.render()).not.toContain("kyverno_policy_results_total{");
  });
});

describe("deadline", () => {
  it("is the webhook timeout minus min(1 s, 20 %)", () => {
    expect(deadlineFor(10)).toBe(9000);
    expect(deadlineFor(1)).toBe(800);
    expect(deadlineFor(30)).toBe(29000);
  });

  it("answers per failure policy when evaluation overruns the deadline", () => {
    // Every clock reading advances 500 ms against an 800 ms budget (arrival, start, then one reading
    // after each policy): only the first policy runs.
    const policies = ["a", "b", "c"].map((name) => podValidatePolicy({ name }));
    const fail = setup(policies, { clock: fakeClock(500), webhookTimeoutSeconds: 1 });
    const denied = fail.call(VALIDATE_FAIL, review({}));
    expect(denied.allowed).toBe(false);
    expect(denied.status?.message).toBe(
      "admission review was not completed within 800ms (webhook timeout); policies not evaluated: b, c",
    );
    const ignored = policies.map((p) => ({ ...p, spec: { ...p.spec, failurePolicy: "Ignore" as const } }));
    const ignore = setup(ignored, { clock: fakeClock(500), webhookTimeoutSeconds: 1 });
    const allowed = ignore.call(VALIDATE_IGNORE, review({}));
    expect(allowed.allowed).toBe(true);
    expect(allowed.warnings?.[0]).toContain("policies not evaluated: b, c");
    const audits = ["a", "b", "c"].map((name) => podValidatePolicy({ name, action: "Audit" }));
    const audit = setup(audits, { clock: fakeClock(500), webhookTimeoutSeconds: 1 });
    expect(audit.call(VALIDATE_FAIL, review({})).allowed).toBe(true);
  });

  it("counts time spent queued before the handler ran", () => {
    const clock = fakeClock();
    const { handler } = setup([podValidatePolicy({ name: "p" })], { clock, webhookTimeoutSeconds: 1 });
    const receivedAt = clock.monotonic();
    clock.advance(5000);
    const reply = immediate(handler.handleBody(VALIDATE_FAIL, JSON.stringify(review({})), { receivedAt }));
    expect(reply.statusCode === 200 && reply.body.response.status?.message).toContain(
      "not completed within 800ms",
    );
  });
});

/**
 * A ScanContext over fixed ConfigMaps (key `namespace/name`): answers what it has loaded, records
 * what an evaluation missed, and loads the misses (after `delayMs`) before the next round.
 */
function fixedConfigMaps(data: Record<string, JsonValue>, delayMs = 0) {
  const fetched: string[] = [];
  const factory = (_timeoutMs: number): ScanContext => {
    const loaded = new Map<string, LoadResult>();
    let missed: string[] | undefined;
    return {
      loader: {
        configMap: (namespace, name) => {
          const key = `${namespace}/${name}`;
          const hit = loaded.get(key);
          if (hit !== undefined) return hit;
          missed?.push(key);
          return { ok: false, error: `configMap ${key} not loaded yet` };
        },
      },
      async evaluate(run, signal) {
        for (;;) {
          missed = [];
          const value = run();
          const misses = missed;
          missed = undefined;
          if (misses.length === 0 || signal.aborted) return value;
          // Like the real loader, a fetch stops when the request's deadline aborts it.
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, delayMs);
            signal.addEventListener("abort", () => {
              clearTimeout(timer);
              resolve();
            });
          });
          if (signal.aborted) return value;
          for (const key of misses) {
            fetched.push(key);
            const found = data[key];
            loaded.set(
              key,
              found === undefined ? { ok: false, error: `${key} not found` } : { ok: true, value: found },
            );
          }
        }
      },
      clear() {},
    };
  };
  return { factory, fetched };
}

const lockedPolicy = (action: "Audit" | "Enforce", failurePolicy: "Fail" | "Ignore" = "Fail"): Policy =>
  podValidatePolicy({
    name: "locked",
    action,
    failurePolicy,
    message: "the cluster is locked",
    context: [{ name: "settings", configMap: { name: "settings", namespace: "kyverno" } }],
    deny: { conditions: { any: [{ key: "{{ settings.data.mode }}", operator: "Equals", value: "locked" }] } },
  });

describe("policies that read external data", () => {
  it("loads ConfigMaps before deciding, then records metrics and results once", async () => {
    const data = fixedConfigMaps({ "kyverno/settings": { data: { mode: "locked" } } });
    const { handler, sink, metrics } = setup([lockedPolicy("Audit")], { externalData: data.factory });
    const pending = handler.handleBody(VALIDATE_FAIL, JSON.stringify(review({})));
    expect(pending).toBeInstanceOf(Promise);
    const reply = await pending;
    expect(reply.statusCode === 200 && reply.body.response.allowed).toBe(true);
    expect(data.fetched).toEqual(["kyverno/settings"]);
    const results = sink.drain();
    expect(results).toHaveLength(1);
    expect(results[0]?.responses[0]?.rules[0]).toMatchObject({
      status: "fail",
      message: "the cluster is locked",
    });
    expect(await metrics.render()).toMatch(
      /kyverno_policy_results_total\{[^}]*policy_name="locked"[^}]*rule_result="fail"[^}]*\} 1\n/,
    );
  });

  it("enforces with the loaded data, and a missing ConfigMap is a rule error under the failure policy", async () => {
    const locked = fixedConfigMaps({ "kyverno/settings": { data: { mode: "locked" } } });
    const enforce = setup([lockedPolicy("Enforce")], { externalData: locked.factory });
    const denied = await enforce.handler.handleBody(VALIDATE_FAIL, JSON.stringify(review({})));
    expect(denied.statusCode === 200 && denied.body.response.status?.message).toContain(
      "locked:\n  check-privileged: the cluster is locked",
    );
    const open = fixedConfigMaps({ "kyverno/settings": { data: { mode: "open" } } });
    const allowed = await setup([lockedPolicy("Enforce")], { externalData: open.factory }).handler.handleBody(
      VALIDATE_FAIL,
      JSON.stringify(review({})),
    );
    expect(allowed.statusCode === 200 && allowed.body.response.allowed).toBe(true);
    const missing = fixedConfigMaps({});
    const failing = await setup([lockedPolicy("Enforce")], {
      externalData: missing.factory,
    }).handler.handleBody(VALIDATE_FAIL, JSON.stringify(review({})));
    expect(failing.statusCode === 200 && failing.body.response.status?.message).toContain(
      "kyverno/settings not found",
    );
    const ignoring = await setup([lockedPolicy("Enforce", "Ignore")], {
      externalData: missing.factory,
    }).handler.handleBody(VALIDATE_IGNORE, JSON.stringify(review({})));
    expect(ignoring.statusCode === 200 && ignoring.body.response.allowed).toBe(true);
  });

  it("answers within the deadline when loading is slower than the webhook timeout", async () => {
    const slow = fixedConfigMaps({ "kyverno/settings": { data: { mode: "open" } } }, 5_000);
    const { handler } = setup([lockedPolicy("Enforce")], {
      externalData: slow.factory,
      deadlineMs: 50,
    });
    const started = performance.now();
    const reply = await handler.handleBody(VALIDATE_FAIL, JSON.stringify(review({})));
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(reply.statusCode === 200 && reply.body.response.allowed).toBe(false);
    expect(slow.fetched).toEqual([]);
  });
});

describe("mutate webhook results", () => {
  it("hands the mutating webhook's responses to the sink as phase mutate, without a uid on CREATE", () => {
    const addLabel = policy({
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      metadata: { name: "add-label" },
      spec: {
        rules: [
          {
            name: "label",
            match: { any: [{ resources: { kinds: ["Pod"] } }] },
            mutate: { patchStrategicMerge: { metadata: { labels: { owner: "platform" } } } },
          },
        ],
      },
    });
    const { call, sink } = setup([addLabel]);
    const mutated = call(
      { type: "mutate", failurePolicy: "Fail" },
      review({ object: pod({ privileged: false }) }),
    );
    expect(mutated.patch).toBeDefined();
    const [result] = sink.drain();
    expect(result?.phase).toBe("mutate");
    expect(result?.resource).toMatchObject({ kind: "Pod", namespace: "default", name: "x", uid: "" });
    expect(result?.responses[0]?.rules).toEqual([
      expect.objectContaining({
        name: "label",
        type: "Mutation",
        status: "pass",
        message: "mutated Pod/x in namespace default",
      }),
    ]);
    call(
      { type: "mutate", failurePolicy: "Fail" },
      review({ object: pod({ privileged: false }), dryRun: true }),
    );
    expect(sink.size).toBe(0);
  });
});
