/**
 * Every user-visible rule message format, in one place: reports, the CLI and tests compare them,
 * and they follow upstream Kyverno's wording.
 */

function withPeriod(message: string): string {
  return message.endsWith(".") ? message : `${message}.`;
}

/** `validation rule 'X' passed.` */
export function passMessage(rule: string): string {
  return `validation rule '${rule}' passed.`;
}

/** `validation rule 'X' anyPattern[i] passed.` */
export function anyPatternPassMessage(rule: string, index: number): string {
  return `validation rule '${rule}' anyPattern[${index}] passed.`;
}

/** `validation error: <message>. rule X failed at path /a/b/` (the message part only when set). */
export function patternFailMessage(rule: string, message: string | undefined, path: string): string {
  return message
    ? `validation error: ${withPeriod(message)} rule ${rule} failed at path ${path}`
    : `validation error: rule ${rule} failed at path ${path}`;
}

/** anyPattern failure: each failing alternative with its path. */
export function anyPatternFailMessage(
  rule: string,
  message: string | undefined,
  failures: Array<{ index: number; path: string }>,
): string {
  const parts = failures
    .map((f) => `rule ${rule}[anyPattern[${f.index}]] failed at path ${f.path}`)
    .join(" ");
  return message ? `validation error: ${withPeriod(message)} ${parts}` : `validation error: ${parts}`;
}

/** A deny rule that fired: the rule's message, or upstream's default. */
export function denyFailMessage(rule: string, message: string | undefined): string {
  return message ? message : `validation error: rule ${rule} failed`;
}

/** Preconditions did not hold. */
export const PRECONDITIONS_NOT_MET = "preconditions not met";

/** The `matchConditions` of a `validate.cel` rule did not hold (upstream's wording for them). */
export const CEL_PRECONDITIONS_NOT_MET = "cel preconditions not met";

/**
 * A conditional or global anchor did not match, so the rule is skipped: upstream reports the pattern
 * error itself (`conditional anchor mismatch: …`), without naming the rule.
 */
export function anchorSkipMessage(detail: string): string {
  return detail;
}

/** Every anyPattern alternative was skipped: each one's reason, as upstream joins them. */
export function anyPatternSkipMessage(
  rule: string,
  skips: Array<{ index: number; message: string }>,
): string {
  return skips.map((s) => `rule ${rule}[${s.index}] skipped: ${s.message}`).join(" ");
}

/** A foreach that applied to no element. */
export const FOREACH_SKIP_MESSAGE = "rule skipped";

/** A foreach whose every applied element passed. */
export const FOREACH_PASS_MESSAGE = "rule passed";

/** Variable substitution or context loading failed. */
export function substitutionErrorMessage(what: string, error: string): string {
  return `${what}: ${error}`;
}

/** What happens instead, per unsupported feature, for the message below. */
const UNSUPPORTED_CONSEQUENCE: Readonly<Record<string, string>> = {
  verifyImages: "image signatures and attestations are not verified",
  "validate.manifests": "manifest signatures are not verified",
};

/** The result message of a rule whose feature this version does not evaluate yet: never a pass. */
export function unsupportedRuleMessage(feature: string): string {
  const consequence = UNSUPPORTED_CONSEQUENCE[feature];
  return `${feature} is not supported by kyverno-ts yet${consequence ? ` (${consequence})` : ""}: the rule reports an error instead of a result`;
}

/** A PolicyException matched: `rule is skipped due to policy exception: ns/name`. */
export function exceptionSkipMessage(keys: string[]): string {
  return `rule is skipped due to policy exception: ${keys.join(", ")}`;
}
