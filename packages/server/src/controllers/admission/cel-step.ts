/**
 * The CEL webhooks' evaluation as data: a request's ValidatingPolicies or MutatingPolicies (selected
 * on the main thread, by key) evaluated in order, each MutatingPolicy seeing the object as the ones
 * before it left it. The CEL handler runs it inline, an evaluation worker runs the same function
 * against its own compiled copy of the policies (see `evaluation-pool/`), so both paths decide alike.
 */
import type { KubeObject } from "@kyverno-ts/api";
import type { CelEngine, EngineRequest, PolicyResponse } from "@kyverno-ts/engine";
import type { ServerClock } from "../../clock.js";
import type { CachedCelPolicy, CelPolicyStore } from "../../policycache/cel-policy-store.js";
import type { RequestSubject } from "./request.js";
import type { ReviewParse } from "./review.js";
import type { ReviewBody } from "./review-shell.js";

/** What a CEL evaluation is asked to do; plain data, so it can cross to a worker thread. */
export interface CelJob {
  type: "validate" | "mutate";
  /** Keys of the selected policies (`celPolicyKey`), in evaluation order. */
  policies: string[];
  /** The engine request every policy starts from (without a context loader). */
  request: EngineRequest;
  subject: RequestSubject;
  /** Milliseconds left before the request's deadline when the job was handed over. */
  remainingMs: number;
  /** A large review's text when the job's objects are shells (see review-shell.ts). */
  body?: ReviewBody;
}

/** One policy's evaluation: its response and how long it took. */
export interface CelEvaluation {
  key: string;
  response: PolicyResponse;
  seconds: number;
}

/** What a CEL job produced, one entry per selected policy the evaluating side holds. */
export interface CelJobResult {
  evaluations: CelEvaluation[];
}

/**
 * Runs CEL jobs elsewhere (the evaluation pool's worker threads). `tenant` is whose turn the job takes
 * (the request's namespace). A rejection means the job could not be evaluated in time.
 */
export interface CelEvaluator {
  evaluateCel(job: CelJob, tenant: string): Promise<CelJobResult>;
  /** Parses a large review's text into its shell (see review-shell.ts); rejects as `evaluateCel` does. */
  parseReview?(text: string, remainingMs: number): Promise<ReviewParse>;
}

/** The response of a policy whose evaluation threw or was abandoned: one `error` result. */
export function celErrorResponse(
  type: CelJob["type"],
  policy: CachedCelPolicy,
  subject: RequestSubject,
  message: string,
  timestamp: number,
): PolicyResponse {
  return {
    policy: { kind: policy.policy.kind, name: policy.compiled.name },
    resource: {
      apiVersion: "",
      kind: subject.kind,
      name: subject.name,
      namespace: subject.namespace,
      uid: "",
    },
    rules: [
      {
        name: "",
        type: type === "mutate" ? "Mutation" : "Validation",
        status: "error",
        message,
        failureAction: policy.actions.has("Deny") ? "Enforce" : "Audit",
      },
    ],
    background: policy.compiled.background,
    timestamp,
  };
}

/** Evaluates `policies` in order against `base` (MutatingPolicies chained), never throwing. */
export function evaluateCelPolicies(
  engine: CelEngine,
  clock: ServerClock,
  job: Pick<CelJob, "type" | "subject">,
  policies: readonly CachedCelPolicy[],
  base: EngineRequest,
): CelEvaluation[] {
  const out: CelEvaluation[] = [];
  let current = job.subject.object;
  for (const policy of policies) {
    const started = clock.monotonic();
    const request: EngineRequest = current === job.subject.object ? base : { ...base, resource: current };
    let response: PolicyResponse;
    try {
      response =
        job.type === "mutate"
          ? engine.mutate(policy.compiled, request)
          : engine.validate(policy.compiled, request);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      response = celErrorResponse(
        job.type,
        policy,
        job.subject,
        `policy evaluation failed: ${reason}`,
        clock.now(),
      );
    }
    if (job.type === "mutate" && response.patchedResource !== undefined && (response.patch ?? []).length > 0)
      current = response.patchedResource as KubeObject;
    out.push({ key: policy.key, response, seconds: (clock.monotonic() - started) / 1000 });
  }
  return out;
}

/**
 * Runs a job against a CEL policy store of its own (an evaluation worker's): the policies the job
 * names that the store holds, stopped (as `error`) when the request's deadline passes.
 */
export function runCelJob(
  engine: CelEngine,
  store: Pick<CelPolicyStore, "get">,
  clock: ServerClock,
  job: CelJob,
): CelJobResult {
  const policies: CachedCelPolicy[] = [];
  for (const key of job.policies) {
    const policy = store.get(key);
    if (policy !== undefined) policies.push(policy);
  }
  const base: EngineRequest = { ...job.request, deadline: clock.now() + job.remainingMs };
  return { evaluations: evaluateCelPolicies(engine, clock, job, policies, base) };
}
