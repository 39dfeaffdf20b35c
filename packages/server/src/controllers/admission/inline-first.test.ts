/**
 * With an evaluator (the evaluation pool), a request is first evaluated on the serving thread within
 * `inlineMs`: a cheap one is answered there without the thread hop; one that needs longer is stopped
 * and handed to the evaluator, whose outcome decides.
 */
import { createEngine, type Engine } from "@kyverno-ts/engine";
import { describe, expect, it } from "vitest";
import { type ServerClock, systemClock } from "../../clock.js";
import { createPolicyCache } from "../../policycache/policy-cache.js";
import { pod, podValidatePolicy, policy, recordingLogger, review } from "../../testing/fixtures.js";
import { defaultKyvernoConfig } from "./filters.js";
import { createAdmissionHandler } from "./handler.js";
import type { StepEvaluator, StepJob, StepResult } from "./step.js";

/** A namespaced Policy whose nested foreach visits containers² elements. */
const nested = policy({
  apiVersion: "kyverno.io/v1",
  kind: "Policy",
  metadata: { name: "nested", namespace: "tenant-a" },
  spec: {
    validationFailureAction: "Enforce",
    background: false,
    rules: [
      {
        name: "nested-foreach",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        validate: {
          foreach: [
            {
              list: "request.object.spec.containers",
              foreach: [
                {
                  list: "request.object.spec.containers",
                  deny: {
                    conditions: { any: [{ key: "{{ element.name }}", operator: "Equals", value: "x" }] },
                  },
                },
              ],
            },
          ],
        },
      },
    ],
  },
});

/**
 * The system clock, shifted by `held` milliseconds: a test moves it forward to stand for a thread that
 * was held up (preempted, not running) for that long.
 */
function heldClock(): ServerClock & { hold(ms: number): void; threadCpuMs(): number } {
  const real = systemClock();
  let held = 0;
  return {
    now: () => real.now() + held,
    after: real.after,
    monotonic: () => real.monotonic() + held,
    hold: (ms) => {
      held += ms;
    },
    // The thread's CPU time: it ran all the time it was not held up (deterministic on a loaded machine).
    threadCpuMs: () => real.monotonic(),
  };
}

function setup(wrap: (engine: Engine, clock: ReturnType<typeof heldClock>) => Engine = (e) => e) {
  const clock = heldClock();
  // Only the deadline stops the nested foreach.
  const engine = wrap(createEngine({ clock: clock, limits: { foreachElements: 1e9 } }), clock);
  const cache = createPolicyCache({ engine });
  cache.set(podValidatePolicy({ name: "disallow-privileged" }));
  cache.set(nested);
  const jobs: StepJob[] = [];
  const evaluator: StepEvaluator = {
    evaluate(job) {
      jobs.push(job);
      const result: StepResult = {
        outcome: { allowed: false, message: "decided by the evaluator", warnings: [], responses: [] },
        rules: [],
      };
      return Promise.resolve(result);
    },
  };
  const handler = createAdmissionHandler({
    engine,
    policyCache: cache,
    clock,
    logger: recordingLogger(),
    config: defaultKyvernoConfig(),
    evaluator,
    inlineMs: 1000,
    threadCpuMs: clock.threadCpuMs,
  });
  return { handler, jobs };
}

describe("inline first, then the evaluator", { timeout: 60_000 }, () => {
  it("answers a cheap request on the serving thread without the evaluator", async () => {
    const { handler, jobs } = setup();
    const reply = await handler.handleBody(
      { type: "validate", failurePolicy: "Fail" },
      JSON.stringify(review({ object: pod({ privileged: true }) })),
    );
    expect(reply.statusCode).toBe(200);
    expect(JSON.stringify(reply.body)).toContain("disallow-privileged");
    expect(jobs).toEqual([]);
  });

  it("hands a request that needs longer to the evaluator, whose outcome decides", async () => {
    const { handler, jobs } = setup();
    const containers = Array.from({ length: 3000 }, (_, i) => ({ name: `c${i}`, image: "nginx:1" }));
    const object = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "big", namespace: "tenant-a" },
      spec: { containers },
    };
    const reply = await handler.handleBody(
      { type: "validate", failurePolicy: "Fail" },
      JSON.stringify(review({ object })),
    );
    expect(jobs.map((j) => j.policies)).toEqual([["disallow-privileged", "tenant-a/nested"]]);
    expect(jobs[0]?.remainingMs).toBeGreaterThan(1000);
    expect(JSON.stringify(reply.body)).toContain("decided by the evaluator");
  });

  it("evaluates again inline a request that was held up past inlineMs once", async () => {
    // The first evaluation is held up 2 s (as a thread preempted on a busy node): the inline budget
    // passed and the policy was stopped; the second attempt is not held up.
    let calls = 0;
    const { handler, jobs } = setup((engine, clock) => ({
      ...engine,
      validate: (compiled, request) => {
        if (calls++ === 0) clock.hold(2000);
        return engine.validate(compiled, request);
      },
    }));
    const reply = await handler.handleBody(
      { type: "validate", failurePolicy: "Fail" },
      JSON.stringify(review({ object: pod({ privileged: true }) })),
    );
    expect(jobs).toEqual([]);
    expect(calls).toBe(2);
    expect(reply.statusCode).toBe(200);
    expect(JSON.stringify(reply.body)).toContain("privileged containers are not allowed");
  });

  it("uses an evaluation that finished past inlineMs on the clock: evaluated once, not handed over", async () => {
    // The thread is held up 2 s after the policy was evaluated (before the clock was read again).
    let calls = 0;
    const { handler, jobs } = setup((engine, clock) => ({
      ...engine,
      validate: (compiled, request) => {
        calls++;
        const response = engine.validate(compiled, request);
        clock.hold(2000);
        return response;
      },
    }));
    const reply = await handler.handleBody(
      { type: "validate", failurePolicy: "Fail" },
      JSON.stringify(review({ object: pod({ privileged: true }) })),
    );
    expect(calls).toBe(1);
    expect(jobs).toEqual([]);
    expect(JSON.stringify(reply.body)).toContain("privileged containers are not allowed");
  });

  it("never marks a policy slow when its requests were held up (descheduled) in every attempt", async () => {
    let calls = 0;
    const { handler, jobs } = setup((engine, clock) => ({
      ...engine,
      validate: (compiled, request) => {
        calls++;
        clock.hold(2000);
        return engine.validate(compiled, request);
      },
    }));
    const route = { type: "validate", failurePolicy: "Fail" } as const;
    const body = JSON.stringify(review({ object: pod({ privileged: true }) }));
    for (let i = 0; i < 4; i++) await handler.handleBody(route, body);
    // Each request: inline attempts stopped by the deadline while the thread was held up, which do not
    // count, until too little of the request's time is left (four of 2 s each), then the evaluator.
    expect(jobs).toHaveLength(4);
    expect(calls).toBe(16);
  });

  it("sends the requests of a policy that overran inline in three requests straight to the evaluator", async () => {
    let calls = 0;
    const { handler, jobs } = setup((engine) => ({
      ...engine,
      validate: (compiled, request) => {
        calls++;
        return engine.validate(compiled, request);
      },
    }));
    const containers = Array.from({ length: 3000 }, (_, i) => ({ name: `c${i}`, image: "nginx:1" }));
    const big = (name: string) =>
      JSON.stringify(
        review({
          object: {
            apiVersion: "v1",
            kind: "Pod",
            metadata: { name, namespace: "tenant-a" },
            spec: { containers },
          },
        }),
      );
    const route = { type: "validate", failurePolicy: "Fail" } as const;
    for (const name of ["first", "second", "third"]) await handler.handleBody(route, big(name));
    expect(jobs).toHaveLength(3);
    const inlineCalls = calls;
    expect(inlineCalls).toBeGreaterThan(0);
    // The next request of the tenant's namespace selects the slow policy: no inline evaluation.
    await handler.handleBody(route, big("fourth"));
    expect(jobs).toHaveLength(4);
    expect(calls).toBe(inlineCalls);
    // Another namespace's request does not select it and is still answered inline.
    const reply = await handler.handleBody(
      route,
      JSON.stringify(review({ object: pod({ privileged: true }) })),
    );
    expect(jobs).toHaveLength(4);
    expect(calls).toBe(inlineCalls + 1);
    expect(JSON.stringify(reply.body)).toContain("privileged containers are not allowed");
  });
});
