/**
 * The CEL handler with an evaluator (the evaluation pool's role): requests that need more than the
 * inline time are decided from the evaluator's results, and a job it could not evaluate is answered
 * per failure policy.
 */
import { type CelPolicy, type JsonValue, loadCelPolicy } from "@kyverno-ts/api";
import { createCelEngine } from "@kyverno-ts/engine";
import { describe, expect, it } from "vitest";
import { createCelPolicyStore } from "../../policycache/cel-policy-store.js";
import { fakeClock, pod, recordingLogger, review } from "../../testing/fixtures.js";
import { type CelWebhookRoute, createCelAdmissionHandler } from "./cel-handler.js";
import { type CelEvaluator, type CelJob, runCelJob } from "./cel-step.js";
import { defaultKyvernoConfig } from "./filters.js";

function requireTeam(name: string, failurePolicy: "Fail" | "Ignore"): CelPolicy {
  const loaded = loadCelPolicy(
    {
      apiVersion: "policies.kyverno.io/v1",
      kind: "ValidatingPolicy",
      metadata: { name },
      spec: {
        failurePolicy,
        matchConstraints: {
          resourceRules: [
            { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] },
          ],
        },
        validations: [
          {
            expression: "has(object.metadata.labels) && 'team' in object.metadata.labels",
            message: "team label required",
          },
        ],
      },
    } as JsonValue,
    { file: "test" },
  );
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return loaded.value;
}

type Answer = { allowed: boolean; status?: { message?: string }; warnings?: string[]; patch?: string };

function mutating(name: string, expression: string): CelPolicy {
  const loaded = loadCelPolicy(
    {
      apiVersion: "policies.kyverno.io/v1",
      kind: "MutatingPolicy",
      metadata: { name },
      spec: {
        matchConstraints: {
          resourceRules: [
            { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] },
          ],
        },
        mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression } }],
      },
    } as JsonValue,
    { file: "test" },
  );
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return loaded.value;
}

/** A handler that never evaluates inline (`inlineMs: 0`), with `evaluator` doing the work. */
function setup(
  policy: CelPolicy | CelPolicy[],
  evaluator: (clock: ReturnType<typeof fakeClock>) => CelEvaluator,
) {
  const clock = fakeClock();
  const store = createCelPolicyStore({ engine: createCelEngine({ clock: clock }) });
  for (const p of Array.isArray(policy) ? policy : [policy]) store.set(p);
  const handler = createCelAdmissionHandler({
    engine: createCelEngine({ clock: clock }),
    store,
    clock,
    logger: recordingLogger(),
    config: defaultKyvernoConfig,
    evaluator: evaluator(clock),
    inlineMs: 0,
  });
  return async (route: CelWebhookRoute): Promise<Answer> => {
    const reply = await handler.serveBody(
      route,
      JSON.stringify(review({ object: pod({ name: "web", namespace: "shop" }) })),
    );
    return (reply.body as { response: Answer }).response;
  };
}

describe("CEL handler with an evaluator", () => {
  it("decides from the evaluator's results, as a worker with its own copy of the policies computes them", async () => {
    const jobs: CelJob[] = [];
    const call = setup(requireTeam("require-team", "Fail"), (clock) => {
      // The worker's side: its own engine and store holding the same policy.
      const engine = createCelEngine({ clock: clock });
      const own = createCelPolicyStore({ engine });
      own.set(requireTeam("require-team", "Fail"));
      return {
        evaluateCel: async (job) => {
          jobs.push(job);
          return runCelJob(engine, own, clock, job);
        },
      };
    });
    const answer = await call({ type: "validate", failurePolicy: "Fail" });
    expect(answer.allowed).toBe(false);
    expect(answer.status?.message).toBe("Policy require-team failed: team label required");
    expect(jobs.map((j) => [j.type, j.policies])).toEqual([["validate", ["ValidatingPolicy/require-team"]]]);
  });

  it("answers a job the evaluator abandoned per failure policy: Fail denies, Ignore warns", async () => {
    const abandoning = (): CelEvaluator => ({
      evaluateCel: () =>
        Promise.reject(new Error("the deadline passed while the request waited for a worker")),
    });
    const strict = await setup(
      requireTeam("strict", "Fail"),
      abandoning,
    )({ type: "validate", failurePolicy: "Fail" });
    expect(strict.allowed).toBe(false);
    expect(strict.status?.message).toBe(
      "Policy strict error: policy evaluation failed: the deadline passed while the request waited for a worker",
    );
    const lenient = await setup(
      requireTeam("lenient", "Ignore"),
      abandoning,
    )({
      type: "validate",
      failurePolicy: "Ignore",
    });
    expect(lenient.allowed).toBe(true);
    expect(lenient.warnings?.[0]).toMatch(
      /^Policy lenient error: policy evaluation failed: the deadline passed/,
    );
  });

  it("chains MutatingPolicies in the evaluator as inline: each sees the object the ones before it left", async () => {
    const policies = [
      mutating("a-owner", "Object{metadata: Object.metadata{labels: {'owner': 'platform'}}}"),
      mutating(
        "b-copy",
        "Object{metadata: Object.metadata{labels: {'copy': object.metadata.labels['owner']}}}",
      ),
    ];
    const call = setup(policies, (clock) => {
      const engine = createCelEngine({ clock: clock });
      const own = createCelPolicyStore({ engine });
      for (const p of policies) own.set(p);
      return { evaluateCel: async (job) => runCelJob(engine, own, clock, job) };
    });
    const answer = await call({ type: "mutate", failurePolicy: "Fail" });
    expect(answer.allowed).toBe(true);
    expect(JSON.parse(Buffer.from(answer.patch ?? "", "base64").toString())).toEqual([
      { op: "add", path: "/metadata/labels", value: { owner: "platform" } },
      { op: "add", path: "/metadata/labels/copy", value: "platform" },
    ]);
  });
});

/** A ValidatingPolicy whose nested comprehension charges the CEL budget often enough to meet the deadline. */
function looping(name: string): CelPolicy {
  const list = `[${Array.from({ length: 100 }, (_, i) => i).join(", ")}]`;
  const loaded = loadCelPolicy(
    {
      apiVersion: "policies.kyverno.io/v1",
      kind: "ValidatingPolicy",
      metadata: { name },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: {
          resourceRules: [
            { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] },
          ],
        },
        validations: [{ expression: `${list}.all(x, ${list}.all(y, x + y >= 0))`, message: "never" }],
      },
    } as JsonValue,
    { file: "test" },
  );
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return loaded.value;
}

describe("CEL handler: the inline budget", () => {
  /**
   * A handler with the default inline budget (5 ms) on a clock that advances `step.ms` at each
   * reading and a thread CPU clock advancing `cpuStep.ms` at each reading; the evaluator counts its
   * jobs, the engine its inline evaluations. `during.ms` passes on the clock while an inline
   * evaluation runs, after the engine's own readings: an evaluation that finished but took long.
   */
  function timed(policy: CelPolicy) {
    const step = { ms: 0 };
    const during = { ms: 0 };
    const cpuStep = { ms: 0 };
    const base = fakeClock();
    const clock = {
      ...base,
      monotonic: () => {
        base.advance(step.ms);
        return base.monotonic();
      },
    };
    const real = createCelEngine({ clock });
    let evaluations = 0;
    const engine = {
      ...real,
      validate: (...args: Parameters<typeof real.validate>) => {
        evaluations++;
        const result = real.validate(...args);
        base.advance(during.ms);
        return result;
      },
    };
    const store = createCelPolicyStore({ engine: real });
    store.set(policy);
    let cpu = 0;
    const jobs: CelJob[] = [];
    const handler = createCelAdmissionHandler({
      engine,
      store,
      clock,
      logger: recordingLogger(),
      config: defaultKyvernoConfig,
      evaluator: {
        evaluateCel: async (job) => {
          jobs.push(job);
          step.ms = 0;
          return runCelJob(real, store, clock, job);
        },
      },
      threadCpuMs: () => {
        cpu += cpuStep.ms;
        return cpu;
      },
    });
    const call = async (): Promise<Answer> => {
      const reply = await handler.serveBody(
        { type: "validate", failurePolicy: "Fail" },
        JSON.stringify(review({ object: pod({ name: "web", namespace: "shop" }) })),
      );
      return (reply.body as { response: Answer }).response;
    };
    return { step, during, cpuStep, jobs, call, evaluations: () => evaluations };
  }

  it("uses an evaluation that finished inline however long it took on the clock: once, no evaluator", async () => {
    const { during, jobs, call, evaluations } = timed(requireTeam("require-team", "Fail"));
    during.ms = 30;
    expect((await call()).allowed).toBe(false);
    expect(jobs).toHaveLength(0);
    expect(evaluations()).toBe(1);
  });

  it("tries a cut evaluation again and never marks the policy slow when this thread's CPU time stayed low", async () => {
    const { step, jobs, call, evaluations } = timed(looping("loop"));
    for (let i = 1; i <= 4; i++) {
      step.ms = 30;
      await call();
      expect(jobs).toHaveLength(i);
      // Two attempts, and four more that do not count: the thread was held up in them.
      expect(evaluations()).toBe(6 * i);
    }
  });

  it("sends a policy whose cut evaluation used this thread's CPU straight to the evaluator afterwards", async () => {
    const { step, cpuStep, jobs, call, evaluations } = timed(looping("loop"));
    step.ms = 30;
    cpuStep.ms = 1000;
    await call();
    expect(jobs).toHaveLength(1);
    expect(evaluations()).toBe(1);
    step.ms = 0;
    cpuStep.ms = 0;
    await call();
    expect(jobs).toHaveLength(2);
    expect(evaluations()).toBe(1);
  });
});
