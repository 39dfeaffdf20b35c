/**
 * Every user-visible message of the admission webhooks, in one place: kubectl shows them, tests and
 * end-to-end checks compare them, and the blocking and warning formats follow upstream Kyverno.
 */

/** A rule that makes a request fail: the policy, the rule and the rule's message. */
export interface BlockingRule {
  policy: string;
  rule: string;
  message: string;
}

const RESOLVES_TO_NON_STRING =
  /^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF|[-+]?(?:0b[01_]+|0x[0-9a-fA-F_]+|0o?[0-7_]+|[0-9][0-9_]*|(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[0-9][0-9_]*(?:[eE][-+]?[0-9]+))|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|<<)$/;
const FIRST_INDICATOR = /^[#,[\]{}&*!|>'"%@`]/;
// Printable as YAML allows with unicode output on: tab, LF, CR and everything from space on except DEL,
// C1 controls and the BOM.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const NON_PRINTABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufeff\ufffe\uffff]/;

/**
 * Formats a string as go-yaml (behind sigs.k8s.io/yaml) emits it in a block mapping: plain when the
 * YAML grammar allows it, else single-quoted, else double-quoted; strings that would read back as
 * another type (`true`, `12`, `null`) are double-quoted. Multi-line strings use double quotes here
 * (go-yaml would use a literal block, which rule messages never need).
 */
export function yamlScalar(s: string): string {
  if (s === "") return "''";
  if (NON_PRINTABLE.test(s) || s.includes("\n") || s.includes("\r") || RESOLVES_TO_NON_STRING.test(s))
    return JSON.stringify(s);
  const plain =
    !FIRST_INDICATOR.test(s) &&
    !/^[-?:](?:\s|$)/.test(s) &&
    !s.startsWith("---") &&
    !s.startsWith("...") &&
    !/^\s|\s$/.test(s) &&
    !/:(?:\s|$)/.test(s) &&
    !/\s#/.test(s);
  return plain ? s : `'${s.replaceAll("'", "''")}'`;
}

/**
 * Upstream's message for a blocked request:
 * `\n\nresource Pod/default/x was blocked due to the following policies\n\n<policy>:\n  <rule>: <message>\n`,
 * policies and rules sorted by name (a YAML map, as upstream marshals it). `resource` is
 * `Kind/namespace/name` (an empty namespace for cluster-scoped kinds: `Namespace//prod`).
 */
export function blockedMessage(resource: string, rules: readonly BlockingRule[]): string {
  const byPolicy = new Map<string, Map<string, string>>();
  for (const r of rules) {
    const entry = byPolicy.get(r.policy) ?? new Map<string, string>();
    entry.set(r.rule, r.message);
    byPolicy.set(r.policy, entry);
  }
  let yaml = "";
  for (const policy of [...byPolicy.keys()].sort()) {
    yaml += `${yamlScalar(policy)}:\n`;
    const entry = byPolicy.get(policy) ?? new Map<string, string>();
    for (const rule of [...entry.keys()].sort())
      yaml += `  ${yamlScalar(rule)}: ${yamlScalar(entry.get(rule) ?? "")}\n`;
  }
  return `\n\nresource ${resource} was blocked due to the following policies\n\n${yaml}`;
}

/** Upstream's `Kind/namespace/name` spelling of a resource in messages. */
export function resourceName(kind: string, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

/** Upstream's admission warning for a rule of a policy with `emitWarning`: `policy <policy>.<rule>: <message>`. */
export function ruleWarning(policy: string, rule: string, message: string): string {
  return `policy ${policy}.${rule}: ${message}`;
}

/** Messages about evaluation that could not complete. */
export const EvaluationMessages = {
  /** The engine threw (a bug or a resource too deep to walk): reported as the policy's error. */
  engineError: (error: unknown) =>
    `policy evaluation failed: ${error instanceof Error ? error.message : String(error)}`,
  /** The per-request deadline passed before these policies were evaluated (their failurePolicy is Fail). */
  deadlineDeny: (deadlineMs: number, policies: readonly string[]) =>
    `admission review was not completed within ${deadlineMs}ms (webhook timeout); policies not evaluated: ${policies.join(", ")}`,
  /** Warning when the deadline passed and the skipped policies all have failurePolicy Ignore. */
  deadlineWarning: (deadlineMs: number, policies: readonly string[]) =>
    `admission review was not completed within ${deadlineMs}ms; failurePolicy Ignore, policies not evaluated: ${policies.join(", ")}`,
  /** Warning when a malformed review is let through by a failurePolicy Ignore endpoint. */
  ignoredBadRequest: (message: string) =>
    `kyverno: invalid admission request ignored (failurePolicy Ignore): ${message}`,
  /** Rule name used in messages and metrics when a whole policy failed to evaluate. */
  policyErrorRule: "-",
  /** Rule message of an UPDATE whose old object already violated the rule (allowExistingViolations). */
  existingViolation: "skipping modified resource as validation results have not changed",
} as const;

/** Messages about request bodies that are not usable AdmissionReviews. */
export const ReviewMessages = {
  notJson: (error: unknown) =>
    `request body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
  notAnObject: "request body is not an AdmissionReview object",
  wrongApiVersion: (got: unknown) =>
    `unsupported AdmissionReview apiVersion ${JSON.stringify(got ?? null)}: expected admission.k8s.io/v1`,
  wrongKind: (got: unknown) => `expected kind AdmissionReview, got ${JSON.stringify(got ?? null)}`,
  noRequest: "AdmissionReview has no request",
  badUid: "request.uid must be a UUID string",
  invalidField: (path: string, expected: string) => `${path} must be ${expected}`,
  missingObject: (path: string, operation: string) => `${path} is required for ${operation} requests`,
  tooLarge: (limit: number) => `request body exceeds the limit of ${limit} bytes`,
  emptyBody: "request body is empty",
} as const;
