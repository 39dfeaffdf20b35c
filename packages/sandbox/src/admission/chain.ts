/** `createAdmissionChain`: the composition of the mutating and validating webhook dispatchers. */
import { randomUUID } from "node:crypto";
import { type Logger, silentLogger } from "@kyverno-ts/api";
import { readWebhooks } from "./config.js";
import type { DispatchContext } from "./context.js";
import type { ServiceResolver } from "./http-client.js";
import { createMatchConditionsEvaluator, type MatchConditionsEvaluator } from "./match-conditions.js";
import { runMutating } from "./mutating.js";
import { isExemptFromWebhooks } from "./rules.js";
import type {
  AdmissionAttributes,
  AdmissionResult,
  AdmitOptions,
  PhasedAdmissionChain,
  StatusError,
  WebhookSource,
} from "./types.js";
import { runValidating } from "./validating.js";

/** Options of `createAdmissionChain`. */
export interface AdmissionChainOptions {
  /** The stored webhook configurations, read on every request. */
  webhooks: WebhookSource;
  /**
   * Maps `clientConfig.service` to a reachable base URL (e.g. `https://127.0.0.1:8443`); only its host
   * and port are used, the call is always HTTPS. The TLS server name and the URL in errors stay
   * `<service>.<namespace>.svc`, as upstream. Without it the Service DNS name is dialed, which only
   * resolves inside a cluster.
   */
  resolveService?: ServiceResolver;
  /** Clock in milliseconds, for the request deadline (default `Date.now`). */
  now?: () => number;
  /** Receives the lines upstream logs (webhooks failing open or closed, rejections); default: silent. */
  logger?: Logger;
  /** Request uid generator (default `crypto.randomUUID`). */
  randomUUID?: () => string;
}

/** kube-apiserver's default request timeout (`--request-timeout`). */
const DEFAULT_REQUEST_TIMEOUT_SECONDS = 60;

function allowed(object: AdmissionAttributes["object"], ctx: DispatchContext): AdmissionResult {
  return { allowed: true, object, warnings: ctx.warnings, auditAnnotations: ctx.auditAnnotations };
}

function denied(status: StatusError, ctx: DispatchContext): AdmissionResult {
  return { allowed: false, status, warnings: ctx.warnings, auditAnnotations: ctx.auditAnnotations };
}

/**
 * Creates the webhook admission chain kube-apiserver runs on create, update, delete and connect:
 * mutating webhooks in order (with one reinvocation round), then validating webhooks in parallel on
 * the mutated object, each as an AdmissionReview over HTTPS verified against its `caBundle`.
 * Webhook errors follow `failurePolicy`; denials and failures come back as upstream's Status errors.
 * Every webhook call is bounded by its `timeoutSeconds` and by the request deadline, so `admit`
 * always settles. Admission configuration objects themselves are never sent to webhooks.
 */
export function createAdmissionChain(options: AdmissionChainOptions): PhasedAdmissionChain {
  const conditions: MatchConditionsEvaluator = createMatchConditionsEvaluator();
  const now = options.now ?? Date.now;
  const source = options.webhooks;

  function context(opts: AdmitOptions | undefined): DispatchContext {
    const seconds = opts?.timeoutSeconds ?? DEFAULT_REQUEST_TIMEOUT_SECONDS;
    return {
      resolveService: options.resolveService,
      logger: options.logger ?? silentLogger,
      now,
      deadline: now() + seconds * 1000,
      signal: opts?.signal,
      conditions,
      randomUUID: options.randomUUID ?? randomUUID,
      warnings: [],
      auditAnnotations: {},
    };
  }

  async function mutatePhase(attrs: AdmissionAttributes, ctx: DispatchContext): Promise<AdmissionResult> {
    if (isExemptFromWebhooks(attrs)) return allowed(attrs.object, ctx);
    const result = await runMutating(attrs, ctx, () => readWebhooks(source.mutating()));
    return result.ok ? allowed(result.object, ctx) : denied(result.status, ctx);
  }

  async function validatePhase(attrs: AdmissionAttributes, ctx: DispatchContext): Promise<AdmissionResult> {
    if (isExemptFromWebhooks(attrs)) return allowed(attrs.object, ctx);
    const status = await runValidating(attrs, ctx, readWebhooks(source.validating()));
    return status === undefined ? allowed(attrs.object, ctx) : denied(status, ctx);
  }

  return {
    async admit(attrs, opts) {
      const ctx = context(opts);
      const mutated = await mutatePhase(attrs, ctx);
      if (!mutated.allowed) return mutated;
      return validatePhase({ ...attrs, object: mutated.object }, ctx);
    },
    mutate: (attrs, opts) => mutatePhase(attrs, context(opts)),
    validate: (attrs, opts) => validatePhase(attrs, context(opts)),
  };
}
