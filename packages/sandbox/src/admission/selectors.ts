/**
 * `namespaceSelector` and `objectSelector` of a webhook (upstream predicates/namespace and
 * predicates/object), with label selector parsing errors reported as upstream does.
 */
import type { JsonValue, LabelSelector } from "@kyverno-ts/api";
import { matchLabelSelector } from "@kyverno-ts/k8s";
import { internalError } from "./errors.js";
import type { AdmissionAttributes, StatusError } from "./types.js";

/** A selector check: whether it matches, or the error upstream would return (only when the hook also matches by rules). */
export type SelectorMatch = { matches: boolean; error?: undefined } | { matches: false; error: StatusError };

type Parsed = { ok: true; selector: LabelSelector; empty: boolean } | { ok: false; error: string };

const OPERATORS = new Set(["In", "NotIn", "Exists", "DoesNotExist"]);

function isRecord(value: unknown): value is Record<string, JsonValue> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** metav1.LabelSelectorAsSelector: validates the selector, reporting the first problem in upstream's words. */
function parseSelector(value: JsonValue): Parsed {
  if (value === null) return { ok: true, selector: {}, empty: true };
  if (!isRecord(value)) return { ok: false, error: "label selector must be an object" };
  const matchLabels: Record<string, string> = {};
  if (isRecord(value.matchLabels)) {
    for (const [k, v] of Object.entries(value.matchLabels)) {
      // Label values cannot hold `*` or `?`; rejecting them keeps the engine's wildcard matching out.
      if (typeof v !== "string" || /[*?]/.test(k) || /[*?]/.test(v)) {
        return { ok: false, error: `invalid label selector: ${k}=${String(v)}` };
      }
      matchLabels[k] = v;
    }
  }
  const matchExpressions: NonNullable<LabelSelector["matchExpressions"]> = [];
  const rawExpressions = Array.isArray(value.matchExpressions) ? value.matchExpressions : [];
  for (const raw of rawExpressions) {
    if (!isRecord(raw)) return { ok: false, error: "invalid label selector requirement" };
    const key = typeof raw.key === "string" ? raw.key : "";
    const operator = typeof raw.operator === "string" ? raw.operator : "";
    const values = Array.isArray(raw.values) ? raw.values.filter((v) => typeof v === "string") : [];
    if (!OPERATORS.has(operator))
      return { ok: false, error: `"${operator}" is not a valid label selector operator` };
    const needsValues = operator === "In" || operator === "NotIn";
    if (needsValues && values.length === 0) {
      return {
        ok: false,
        error: "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty",
      };
    }
    if (!needsValues && values.length > 0) {
      return {
        ok: false,
        error: "values: Invalid value: values set must be empty for exists and does not exist",
      };
    }
    matchExpressions.push({ key, operator: operator as "In" | "NotIn" | "Exists" | "DoesNotExist", values });
  }
  const empty = Object.keys(matchLabels).length === 0 && matchExpressions.length === 0;
  return { ok: true, selector: { matchLabels, matchExpressions }, empty };
}

function labelsOf(object: JsonValue | null): Record<string, string> | undefined {
  if (!isRecord(object) || !isRecord(object.metadata)) return undefined;
  const labels = object.metadata.labels;
  const out: Record<string, string> = {};
  if (isRecord(labels)) {
    for (const [k, v] of Object.entries(labels)) if (typeof v === "string") out[k] = v;
  }
  return out;
}

/**
 * `namespaceSelector`: a cluster-scoped request that is not about a Namespace always matches;
 * otherwise the selector is checked against `attrs.namespaceLabels` (the Namespace's own labels for
 * a Namespace request). An empty selector matches everything.
 */
export function matchNamespaceSelector(selector: JsonValue, attrs: AdmissionAttributes): SelectorMatch {
  if (attrs.namespace === "" && attrs.resource.resource !== "namespaces") return { matches: true };
  const parsed = parseSelector(selector);
  if (!parsed.ok) return { matches: false, error: internalError(parsed.error) };
  if (parsed.empty) return { matches: true };
  return { matches: matchLabelSelector(parsed.selector, attrs.namespaceLabels) };
}

/**
 * `objectSelector`: matches when the labels of `object` or of `oldObject` match (so an update that
 * removes a label is still seen); an absent object, or one without metadata, never matches.
 */
export function matchObjectSelector(selector: JsonValue, attrs: AdmissionAttributes): SelectorMatch {
  const parsed = parseSelector(selector);
  if (!parsed.ok) return { matches: false, error: internalError(parsed.error) };
  if (parsed.empty) return { matches: true };
  const matches = [attrs.object, attrs.oldObject].some((obj) => {
    const labels = labelsOf(obj);
    return labels !== undefined && matchLabelSelector(parsed.selector, labels);
  });
  return { matches };
}
