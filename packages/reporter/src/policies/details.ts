/**
 * `policyDetailsOf`: a Kyverno ClusterPolicy or Policy object as the dashboard shows it: the
 * `policies.kyverno.io/*` annotations, background and failure actions, rule names and types, and
 * the object as YAML without `metadata.managedFields` and the last-applied annotation.
 */

import type { JsonValue } from "@kyverno-ts/api";
import { stringify } from "yaml";
import type {
  PolicyDetails,
  PolicyDetailsKind,
  PolicyDetailsSummary,
  PolicyRuleDetails,
  PolicyRuleType,
} from "../api/contract.js";

/** The annotation holding `kubectl apply`'s copy of the object (stripped from the YAML). */
export const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

/** Options of {@link policyDetailsOf}. */
export interface PolicyDetailsOptions {
  /** YAML longer than this (in UTF-16 units) is cut and marked `truncated` (default 256 KiB). */
  maxYamlLength?: number;
}

type Json = { [key: string]: JsonValue };

const RULE_TYPES: readonly Exclude<PolicyRuleType, "other">[] = [
  "validate",
  "mutate",
  "generate",
  "verifyImages",
];

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

function ruleOf(raw: unknown, policyAction: string): PolicyRuleDetails | undefined {
  if (!isObject(raw)) return undefined;
  const name = str(raw.name);
  if (!name) return undefined;
  const type = RULE_TYPES.find((t) => raw[t] !== undefined) ?? "other";
  const validate = raw.validate;
  const own = isObject(validate) ? str(validate.failureAction) : undefined;
  return {
    name,
    type,
    ...(type === "validate" ? { failureAction: own ?? policyAction } : {}),
  };
}

/** The object without server bookkeeping the reader does not need. */
function stripped(object: Json): Json {
  const metadata = isObject(object.metadata) ? { ...object.metadata } : undefined;
  if (!metadata) return object;
  delete metadata.managedFields;
  if (isObject(metadata.annotations)) {
    const { [LAST_APPLIED]: _, ...annotations } = metadata.annotations;
    if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
    else delete metadata.annotations;
  }
  return { ...object, metadata };
}

/** The list fields of a policy (cheap; no YAML). */
export function policySummaryOf(details: PolicyDetails): PolicyDetailsSummary {
  const { kind, name, namespace, policy, title, description, category, severity } = details;
  return {
    kind,
    name,
    ...(namespace !== undefined ? { namespace } : {}),
    policy,
    title,
    ...(description !== undefined ? { description } : {}),
    ...(category !== undefined ? { category } : {}),
    ...(severity !== undefined ? { severity } : {}),
  };
}

/**
 * Reads a ClusterPolicy or Policy object; undefined when it is not one (wrong kind, no name, a
 * Policy without namespace). Never throws for malformed fields: they are left out.
 */
export function policyDetailsOf(raw: unknown, options: PolicyDetailsOptions = {}): PolicyDetails | undefined {
  if (!isObject(raw) || !isObject(raw.metadata)) return undefined;
  const kind = raw.kind;
  if (kind !== "ClusterPolicy" && kind !== "Policy") return undefined;
  const name = str(raw.metadata.name);
  const namespace = kind === "Policy" ? str(raw.metadata.namespace) : undefined;
  if (!name || (kind === "Policy" && !namespace)) return undefined;
  const annotations = isObject(raw.metadata.annotations) ? raw.metadata.annotations : {};
  const note = (key: string) => str(annotations[key]);
  const spec = isObject(raw.spec) ? raw.spec : {};
  const validationFailureAction = str(spec.validationFailureAction) ?? "Audit";
  const rules = (Array.isArray(spec.rules) ? spec.rules : [])
    .map((r) => ruleOf(r, validationFailureAction))
    .filter((r): r is PolicyRuleDetails => r !== undefined);
  const failureActions = [
    ...new Set(rules.flatMap((r) => (r.failureAction !== undefined ? [r.failureAction] : []))),
  ].sort();
  const max = options.maxYamlLength ?? 256 * 1024;
  // kubectl's layout: sequences not indented under their key, no line folding, YAML 1.1 quoting.
  let content = stringify(stripped(raw), { indentSeq: false, lineWidth: 0, version: "1.1" });
  const truncated = content.length > max;
  if (truncated) content = `${content.slice(0, content.lastIndexOf("\n", max) + 1)}# … truncated\n`;
  const description = note("policies.kyverno.io/description");
  const category = note("policies.kyverno.io/category");
  const severity = note("policies.kyverno.io/severity");
  const version = note("policies.kyverno.io/minversion");
  const kubernetesVersion = note("kyverno.io/kubernetes-version");
  return {
    kind: kind as PolicyDetailsKind,
    name,
    ...(namespace !== undefined ? { namespace } : {}),
    policy: namespace !== undefined ? `${namespace}/${name}` : name,
    title: note("policies.kyverno.io/title") ?? name,
    ...(description !== undefined ? { description } : {}),
    ...(category !== undefined ? { category } : {}),
    ...(severity !== undefined ? { severity } : {}),
    engine: {
      name: "Kyverno",
      ...(version !== undefined ? { version } : {}),
      ...(kubernetesVersion !== undefined ? { kubernetesVersion } : {}),
      subjects: (note("policies.kyverno.io/subject") ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== ""),
    },
    background: spec.background !== false,
    validationFailureAction,
    failureActions,
    rules,
    code: { contentType: "text/yaml", content, truncated },
  };
}
