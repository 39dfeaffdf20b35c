/**
 * The policy and exception validation webhooks (`/policyvalidate`, `/exceptionvalidate`): an invalid
 * ClusterPolicy, Policy or PolicyException — or `policies.kyverno.io` policy or PolicyException — is
 * rejected at `kubectl apply` with every problem and its field path (and, for a CEL expression, the
 * position in it), using the same loaders as the CLI and the engines' compile steps.
 */
import type { JsonValue, LoadError } from "@kyverno-ts/api";
import { loadCelPolicy, loadCelPolicyException, loadPolicy, loadPolicyException } from "@kyverno-ts/api";
import type { CelEngine, Engine } from "@kyverno-ts/engine";
import { compilableForm, distinctIssues } from "../policycache/cel-policy-store.js";
import { type ExceptionSettings, exceptionValidationWarnings } from "../policycache/exception-settings.js";
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
}

/** The two validation endpoints' logic; see `createPolicyValidation`. */
export interface PolicyValidation {
  /** Allows a valid ClusterPolicy / Policy (warnings for deprecated forms); denies with every problem otherwise. */
  validatePolicyReview(review: ParsedReview): AdmissionReviewResponse;
  /**
   * Allows a valid PolicyException, with upstream's warning when it will not be processed (exceptions
   * disabled, no exception namespace set, or another namespace); denies an invalid one.
   */
  validateExceptionReview(review: ParsedReview): AdmissionReviewResponse;
  /** Answers a raw body for one of the endpoints; malformed bodies get a 400 or a denial. Never throws. */
  handleBody(endpoint: "policy" | "exception", body: string): HandlerReply;
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

/** Creates the validators. They only read their inputs: nothing is stored or compiled for later use. */
export function createPolicyValidation(options: PolicyValidationOptions): PolicyValidation {
  const { engine } = options;

  function validatePolicyReview(review: ParsedReview): AdmissionReviewResponse {
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
    return allow(request.uid, loaded.warnings.map(describe));
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
    handleBody(endpoint, body) {
      const parsed = parseAdmissionReview(body);
      if (!parsed.ok)
        return parsed.uid === undefined
          ? statusBody(parsed.message)
          : { statusCode: 200, body: deny(parsed.uid, parsed.message, 400) };
      try {
        const review =
          endpoint === "policy"
            ? validatePolicyReview(parsed.review)
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
