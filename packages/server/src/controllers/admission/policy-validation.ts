/**
 * The policy and exception validation webhooks (`/policyvalidate`, `/exceptionvalidate`): an invalid
 * ClusterPolicy, Policy or PolicyException — or `policies.kyverno.io` policy or PolicyException — is
 * rejected at `kubectl apply` with every problem and its field path (and, for a CEL expression, the
 * position in it), using the same loaders as the CLI and the engines' compile steps. As upstream, an
 * update may not change a generate rule's immutable fields (and gets warnings for changes that do not
 * reach what was already generated or mutated), and the background controller must be allowed what
 * the generate and mutate-existing rules need (`background-permissions.ts`).
 */
import type { JsonValue, LoadError, Policy } from "@kyverno-ts/api";
import {
  backgroundPermissionChecks,
  loadCelPolicy,
  loadCelPolicyException,
  loadPolicy,
  loadPolicyException,
  type PermissionDecision,
  permissionIssues,
  validatePolicyUpdate,
} from "@kyverno-ts/api";
import type { CelEngine, Engine } from "@kyverno-ts/engine";
import { compilableForm, distinctIssues } from "../../policycache/cel-policy-store.js";
import { type ExceptionSettings, exceptionValidationWarnings } from "../../policycache/exception-settings.js";
import type { BackgroundPermissions } from "./background-permissions.js";
import {
  type AdmissionReviewResponse,
  allow,
  deny,
  type HandlerReply,
  type ParsedReview,
  parseAdmissionReview,
  statusBody,
} from "./review.js";

/** Options of `createPolicyValidation`. */
export interface PolicyValidationOptions {
  engine: Engine;
  /** Compiles the `policies.kyverno.io` kinds; without it they are allowed unchecked. */
  celEngine?: CelEngine;
  /** `--enablePolicyException` / `--exceptionNamespace`: what the exception webhook warns about. */
  exceptions: ExceptionSettings;
  /**
   * Upstream's auth check of generate and mutate-existing rules (a SubjectAccessReview per verb for
   * the background controller's ServiceAccount); not checked when omitted (standalone mode).
   */
  backgroundPermissions?: BackgroundPermissions;
}

/** The two validation endpoints' logic; see `createPolicyValidation`. */
export interface PolicyValidation {
  /** Allows a valid ClusterPolicy / Policy (warnings for deprecated forms); denies with every problem otherwise. */
  validatePolicyReview(review: ParsedReview): Promise<AdmissionReviewResponse>;
  /**
   * Allows a valid PolicyException, with upstream's warning when it will not be processed (exceptions
   * disabled, no exception namespace set, or another namespace); denies an invalid one.
   */
  validateExceptionReview(review: ParsedReview): AdmissionReviewResponse;
  /** Answers a raw body for one of the endpoints; malformed bodies get a 400 or a denial. Never rejects. */
  handleBody(endpoint: "policy" | "exception", body: string): Promise<HandlerReply>;
}

/** `path: message`, or the message alone for document-level problems. */
function describe(e: LoadError): string {
  return e.path === "" ? e.message : `${e.path}: ${e.message}`;
}

function objectName(review: ParsedReview, fallbackKind: string): string {
  const o = review.object;
  const kind = typeof o?.kind === "string" ? o.kind : fallbackKind;
  const ns = o?.metadata?.namespace;
  return `${kind}/${ns ? `${ns}/` : ""}${o?.metadata?.name ?? review.request.name ?? ""}`;
}

/** True for an object of the `policies.kyverno.io` group. */
function isCelObject(object: ParsedReview["object"]): boolean {
  return typeof object?.apiVersion === "string" && object.apiVersion.startsWith("policies.kyverno.io/");
}

/**
 * Upstream's path of a denied check: `spec.rules[0].generate..` (`generate.foreach.` in a foreach
 * generation), `spec.rules[0].mutate.targets`, as its webhook prints them.
 */
function permissionPath(path: string): string {
  const generate = /^(spec\.rules\[\d+\]\.generate)(\.foreach)?/.exec(path);
  if (generate) return `${generate[1]}.${generate[2] ? "foreach" : ""}.`;
  const mutate = /^(spec\.rules\[\d+\]\.mutate)\.targets/.exec(path);
  return mutate ? `${mutate[1]}.targets` : path;
}

/**
 * Upstream's auth check: the first denied rule part, as `path: <rule part>: <message>` (a mutate
 * rule's denied targets joined, a generate rule's first denied verb), or undefined when all is allowed.
 */
async function permissionDenial(
  policy: Policy,
  permissions: BackgroundPermissions,
): Promise<string | undefined> {
  const checks = backgroundPermissionChecks(policy);
  if (checks.length === 0) return undefined;
  const decisions = new Map<string, PermissionDecision>();
  const key = (c: (typeof checks)[number]) => JSON.stringify(c);
  for (const check of checks) decisions.set(key(check), await permissions.decide(check));
  const issues = permissionIssues(
    policy,
    permissions.user,
    (c) => decisions.get(key(c)) ?? { allowed: true },
  );
  const first = issues[0];
  if (first === undefined) return undefined;
  const prefix = /^auth check fails[^:]*: /.exec(first.message)?.[0];
  const message =
    prefix === undefined
      ? first.message
      : prefix +
        issues
          .filter((i) => permissionPath(i.path) === permissionPath(first.path))
          .map((i) => i.message.slice(prefix.length))
          .join("; ");
  return `path: ${permissionPath(first.path)}: ${message}`;
}

/** Creates the validators. They only read their inputs: nothing is stored or compiled for later use. */
export function createPolicyValidation(options: PolicyValidationOptions): PolicyValidation {
  const { engine } = options;

  async function validatePolicyReview(review: ParsedReview): Promise<AdmissionReviewResponse> {
    const { request } = review;
    if (request.operation === "DELETE" || review.object === undefined) return allow(request.uid);
    const where = { file: objectName(review, "ClusterPolicy") };
    if (isCelObject(review.object)) {
      const cel = loadCelPolicy(review.object as unknown as JsonValue, where);
      if (!cel.ok) return deny(request.uid, `${where.file}: ${cel.errors.map(describe).join("; ")}`);
      const compiled = options.celEngine?.compile(compilableForm(cel.value));
      if (compiled !== undefined && !compiled.ok)
        return deny(
          request.uid,
          `${where.file}: ${distinctIssues(compiled.issues)
            .map((i) => (i.path ? `${i.path}: ${i.message}` : i.message))
            .join("; ")}`,
        );
      const unsupported = compiled?.ok === true ? compiled.policy.unsupported : undefined;
      return allow(request.uid, [
        ...cel.warnings.map(describe),
        ...(unsupported === undefined
          ? []
          : [`${where.file}: ${unsupported}; matching requests get an error`]),
      ]);
    }
    const loaded = loadPolicy(review.object as unknown as JsonValue, where);
    if (!loaded.ok) return deny(request.uid, loaded.errors.map(describe).join("; "));
    const compiled = engine.compile(loaded.value);
    if (!compiled.ok)
      return deny(
        request.uid,
        compiled.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; "),
      );
    const warnings = loaded.warnings.map(describe);
    if (request.operation === "UPDATE" && review.oldObject !== undefined) {
      const old = loadPolicy(review.oldObject as unknown as JsonValue, where);
      if (old.ok) {
        const update = validatePolicyUpdate(old.value, loaded.value);
        const [error] = update.errors;
        if (error !== undefined) return deny(request.uid, error.message);
        warnings.push(...update.warnings.map((w) => w.message));
      }
    }
    if (options.backgroundPermissions !== undefined) {
      const denial = await permissionDenial(loaded.value, options.backgroundPermissions);
      if (denial !== undefined) return deny(request.uid, denial);
    }
    return allow(request.uid, warnings);
  }

  function validateExceptionReview(review: ParsedReview): AdmissionReviewResponse {
    const { request } = review;
    if (request.operation === "DELETE" || review.object === undefined) return allow(request.uid);
    const where = { file: objectName(review, "PolicyException") };
    if (isCelObject(review.object)) {
      const cel = loadCelPolicyException(review.object as unknown as JsonValue, where);
      if (!cel.ok) return deny(request.uid, cel.errors.map(describe).join("; "));
      const namespace = cel.value.metadata.namespace ?? request.namespace ?? "";
      return allow(request.uid, [
        ...exceptionValidationWarnings(options.exceptions, namespace),
        ...cel.warnings.map(describe),
      ]);
    }
    const loaded = loadPolicyException(review.object as unknown as JsonValue, where);
    if (!loaded.ok) return deny(request.uid, loaded.errors.map(describe).join("; "));
    const namespace = loaded.value.metadata.namespace ?? request.namespace ?? "";
    const warnings = [
      ...exceptionValidationWarnings(options.exceptions, namespace),
      ...loaded.warnings.map(describe),
    ];
    return allow(request.uid, warnings);
  }

  return {
    validatePolicyReview,
    validateExceptionReview,
    async handleBody(endpoint, body) {
      const parsed = parseAdmissionReview(body);
      if (!parsed.ok)
        return parsed.uid === undefined
          ? statusBody(parsed.message)
          : { statusCode: 200, body: deny(parsed.uid, parsed.message, 400) };
      try {
        const review =
          endpoint === "policy"
            ? await validatePolicyReview(parsed.review)
            : validateExceptionReview(parsed.review);
        return { statusCode: 200, body: review };
      } catch (error) {
        return {
          statusCode: 200,
          body: deny(parsed.review.request.uid, `validation failed: ${(error as Error).message}`),
        };
      }
    },
  };
}
