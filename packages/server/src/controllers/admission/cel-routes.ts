/** The CEL policies' webhooks (`/vpol/...`, `/mpol/...`, `/ivpol/...`, `/gpol/...`) and their routes. */
import type { CelPolicyType } from "@kyverno-ts/engine";
import type { FailurePolicy } from "../../policycache/policy-cache.js";

/** Which CEL webhook a request came in on. */
export interface CelWebhookRoute {
  type: Extract<CelPolicyType, "validate" | "mutate" | "imageValidate" | "generate">;
  failurePolicy: FailurePolicy;
  /** A fine-grained webhook serves one policy (its own timeout); every policy of the type otherwise. */
  policy?: string;
}

/** Upstream's path prefix of each CEL webhook type. */
export const CEL_WEBHOOK_PATHS = {
  validate: "/vpol",
  mutate: "/mpol",
  imageValidate: "/ivpol",
  generate: "/gpol",
} as const;

/** Upstream's webhook name prefix of each CEL webhook type. */
export const CEL_WEBHOOK_NAMES = {
  validate: "vpol.validate.kyverno.svc",
  mutate: "mpol.mutate.kyverno.svc",
  imageValidate: "ivpol.validate.kyverno.svc",
  generate: "gpol.validate.kyverno.svc",
} as const;

/** The path of a CEL webhook: `/vpol/fail`, or `/vpol/fail/finegrained/<policy>`. */
export function celWebhookPath(route: CelWebhookRoute): string {
  const base = `${CEL_WEBHOOK_PATHS[route.type]}/${route.failurePolicy.toLowerCase()}`;
  return route.policy === undefined ? base : `${base}/finegrained/${route.policy}`;
}

/** Parses a CEL webhook path; undefined for other paths. */
export function parseCelWebhookPath(path: string): CelWebhookRoute | undefined {
  const m = /^\/(vpol|mpol|ivpol|gpol)\/(fail|ignore)(?:\/finegrained\/([^/]+))?$/.exec(path);
  if (m === null) return undefined;
  const types = { vpol: "validate", mpol: "mutate", ivpol: "imageValidate", gpol: "generate" } as const;
  const type = types[m[1] as keyof typeof types];
  const failurePolicy = m[2] === "fail" ? "Fail" : "Ignore";
  return m[3] === undefined ? { type, failurePolicy } : { type, failurePolicy, policy: m[3] };
}
