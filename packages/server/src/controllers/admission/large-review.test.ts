/**
 * A large review with an evaluator is parsed and evaluated in workers (review-shell.ts): the answer is
 * the one the serving thread gives when it parses and evaluates the review itself. The evaluators here
 * clone every message as a worker's port does (`structuredClone`, identity kept within a message), and
 * one test runs the real evaluation pool.
 */
import { type CelPolicy, type JsonValue, loadCelPolicy } from "@kyverno-ts/api";
import { createCelEngine, createEngine } from "@kyverno-ts/engine";
import { afterAll, describe, expect, it } from "vitest";
import { systemClock } from "../../clock.js";
import { SOURCE_WORKER_EXEC_ARGV, SOURCE_WORKER_URL } from "../../evaluation-pool/testing/index.js";
import { createCelPolicyStore } from "../../policycache/cel-policy-store.js";
import { createPolicyCache } from "../../policycache/policy-cache.js";
import { podValidatePolicy, policy, recordingLogger, review } from "../../testing/fixtures.js";
import { type AdmissionCore, createAdmissionCore } from "./admission-core.js";
import { createCelAdmissionHandler } from "./cel-handler.js";
import { type CelEvaluator, runCelJob } from "./cel-step.js";
import { defaultKyvernoConfig } from "./filters.js";
import { createAdmissionHandler } from "./handler.js";
import { fillReviewShells, shellReview } from "./review-shell.js";
import { runJob, type StepEvaluator } from "./step.js";

type Json = { [key: string]: JsonValue };

/** A Pod of `n` containers, the one at `privileged` privileged, without a `team` label. */
function bigPod(n: number, privileged: number): Json {
  const containers: Json[] = Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: "nginx:1.25" }));
  (containers[privileged] as Json).securityContext = { privileged: true };
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "big", namespace: "shop", labels: { app: "web" } },
    spec: { containers },
  };
}

const requireTeam: CelPolicy = (() => {
  const loaded = loadCelPolicy(
    {
      apiVersion: "policies.kyverno.io/v1",
      kind: "ValidatingPolicy",
      metadata: { name: "require-team" },
      spec: {
        matchConstraints: {
          resourceRules: [
            { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] },
          ],
        },
        validations: [
          {
            expression:
              "object.spec.containers.all(c, c.name != 'c1999') && 'team' in object.metadata.labels",
            message: "team label required on every container",
          },
        ],
      },
    } as JsonValue,
    { file: "test" },
  );
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return loaded.value;
})();

const body = JSON.stringify(review({ object: bigPod(2000, 1500) }));
const route = { type: "validate", failurePolicy: "Fail" } as const;

/** The classic and CEL handlers, without an evaluator and with one that clones as a worker port does. */
function setup() {
  const clock = systemClock();
  const engine = createEngine({ clock });
  const cache = createPolicyCache({ engine });
  cache.set(podValidatePolicy({ name: "disallow-privileged" }));
  cache.set(
    podValidatePolicy({
      name: "delete-guard",
      operations: ["DELETE"],
      message: "the last container is still there",
      deny: {
        conditions: {
          any: [
            { key: "{{ request.oldObject.spec.containers[1999].name }}", operator: "Equals", value: "c1999" },
          ],
        },
      },
    }),
  );
  cache.set(
    policy({
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      metadata: { name: "add-owner" },
      spec: {
        rules: [
          {
            name: "owner",
            match: { any: [{ resources: { kinds: ["Pod"] } }] },
            mutate: {
              patchStrategicMerge: {
                metadata: { labels: { owner: "{{ request.object.spec.containers[1999].name }}" } },
              },
            },
          },
        ],
      },
    }),
  );
  const celEngine = createCelEngine({ clock });
  const store = createCelPolicyStore({ engine: celEngine });
  store.set(requireTeam);
  const calls = { parse: 0, shells: 0 };
  const evaluator: StepEvaluator & CelEvaluator = {
    parseReview: async (text) => {
      calls.parse++;
      return structuredClone(shellReview(structuredClone(text)));
    },
    evaluate: async (sent) => {
      const job = structuredClone(sent);
      if (job.body !== undefined) {
        calls.shells++;
        fillReviewShells(job.body);
      }
      const { stopped: _stopped, ...result } = runJob(engine, cache, clock, job);
      return structuredClone(result);
    },
    evaluateCel: async (sent) => {
      const job = structuredClone(sent);
      if (job.body !== undefined) {
        calls.shells++;
        fillReviewShells(job.body);
      }
      return structuredClone(runCelJob(celEngine, store, clock, job));
    },
  };
  const classic = (withEvaluator: boolean) =>
    createAdmissionHandler({
      engine,
      policyCache: cache,
      clock,
      logger: recordingLogger(),
      config: defaultKyvernoConfig(),
      ...(withEvaluator ? { evaluator } : {}),
    });
  const cel = (withEvaluator: boolean) =>
    createCelAdmissionHandler({
      engine: celEngine,
      store,
      clock,
      logger: recordingLogger(),
      config: defaultKyvernoConfig,
      ...(withEvaluator ? { evaluator } : {}),
    });
  return { classic, cel, calls };
}

describe("large reviews parsed and evaluated in workers", () => {
  it("a classic review: the answer of the serving thread, the objects filled from the text in the worker", async () => {
    const { classic, calls } = setup();
    const here = await classic(false).handleBody(route, body);
    const there = await classic(true).handleBody(route, body);
    expect(calls).toEqual({ parse: 1, shells: 1 });
    expect(there).toEqual(here);
    expect(JSON.stringify(there.body)).toContain("privileged containers are not allowed");
  });

  it("a classic mutate review and a DELETE review (its old object filled in): the answers of the serving thread", async () => {
    const { classic, calls } = setup();
    const mutate = { type: "mutate", failurePolicy: "Fail" } as const;
    const here = await classic(false).handleBody(mutate, body);
    const there = await classic(true).handleBody(mutate, body);
    expect(there).toEqual(here);
    expect(JSON.stringify(there.body)).toContain('"patch"');
    const deletion = JSON.stringify(
      review({ operation: "DELETE", object: null, oldObject: bigPod(2000, 1500) }),
    );
    const deniedHere = await classic(false).handleBody(route, deletion);
    const deniedThere = await classic(true).handleBody(route, deletion);
    expect(deniedThere).toEqual(deniedHere);
    expect(JSON.stringify(deniedThere.body)).toContain("the last container is still there");
    expect(calls).toEqual({ parse: 2, shells: 2 });
  });

  it("a CEL review: the answer of the serving thread", async () => {
    const { cel, calls } = setup();
    const here = await cel(false).serveBody({ type: "validate", failurePolicy: "Fail" }, body);
    const there = await cel(true).serveBody({ type: "validate", failurePolicy: "Fail" }, body);
    expect(calls).toEqual({ parse: 1, shells: 1 });
    expect(there).toEqual(here);
    expect(JSON.stringify(there.body)).toContain("team label required on every container");
  });

  it("a large body that is no AdmissionReview is answered as the serving thread answers it", async () => {
    const { classic } = setup();
    const broken = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1","x":"${"y".repeat(40_000)}"}}`;
    expect(await classic(true).handleBody(route, broken)).toEqual(
      await classic(false).handleBody(route, broken),
    );
  });

  it("a small review stays on the serving thread", async () => {
    const { classic, calls } = setup();
    await classic(true).handleBody(route, JSON.stringify(review({})));
    expect(calls).toEqual({ parse: 0, shells: 0 });
  });
});

describe("large reviews in the evaluation pool", { timeout: 60_000 }, () => {
  let core: AdmissionCore | undefined;
  afterAll(async () => core?.pool?.close());

  it("answers a large review as an admission core without workers does", async () => {
    const build = (workers: number) => {
      const built = createAdmissionCore({
        config: defaultKyvernoConfig(),
        clock: systemClock(),
        logger: recordingLogger(),
        evaluation: { workers, workerUrl: SOURCE_WORKER_URL, execArgv: SOURCE_WORKER_EXEC_ARGV },
      });
      built.cache.set(podValidatePolicy({ name: "disallow-privileged" }));
      built.celPolicies.set(requireTeam);
      return built;
    };
    const inline = build(0);
    core = build(1);
    // No worker runs before a review needs one (a worker costs ~30 MiB); the large review starts it,
    // waits for it, and is answered by it.
    expect(core.pool?.stats().workers).toBe(0);
    expect(await core.handler.handleBody(route, body)).toEqual(await inline.handler.handleBody(route, body));
    expect(core.pool?.stats()).toMatchObject({ workers: 1, ready: 1, abandoned: 0 });
    const celRoute = { type: "validate", failurePolicy: "Fail" } as const;
    expect(await core.celHandler.serveBody(celRoute, body)).toEqual(
      await inline.celHandler.serveBody(celRoute, body),
    );
  });
});
