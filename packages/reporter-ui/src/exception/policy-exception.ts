/**
 * Builds a Kyverno `PolicyException` (kyverno.io/v2) for one resource: an exception per policy
 * with the rules that did not pass, matched on the resource's kind, name and namespace. The YAML
 * is written by hand (no YAML library in the bundle) with every scalar quoted when needed.
 */

/** The resource to exempt. */
export interface ExceptionResource {
  kind: string;
  name: string;
  /** Absent for cluster-scoped resources. */
  namespace?: string;
}

/** A policy and the rules to exempt from it. */
export interface ExceptionPolicy {
  policy: string;
  rules: readonly string[];
}

/** Options of {@link policyExceptionYaml}. */
export interface ExceptionOptions {
  resource: ExceptionResource;
  policies: readonly ExceptionPolicy[];
  /** Where the exception lives; default the resource's namespace, else `kyverno`. */
  namespace?: string;
}

const PLAIN = /^[A-Za-z0-9_][A-Za-z0-9_./-]*$/;
const RESERVED =
  /^(true|false|yes|no|on|off|null|y|n|~|[-+]?(\d[\d_]*(\.\d*)?|\.\d+)([eE][-+]?\d+)?|0x[0-9a-fA-F]+|0o[0-7]+)$/i;

/** A YAML scalar: plain when safe, double-quoted (JSON escaping) otherwise. */
export function yamlScalar(value: string): string {
  return PLAIN.test(value) && !RESERVED.test(value) ? value : JSON.stringify(value);
}

/** A DNS-1123 name (lower case, `-`, at most 63 characters) derived from `parts`. */
export function exceptionName(...parts: string[]): string {
  const name = parts
    .join("-")
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/-+/g, "-")
    .replace(/^-|-$/g, "");
  return (name.slice(0, 63).replace(/-$/, "") || "exception").replace(/^-/, "");
}

/** Merges policies listed more than once and sorts policies and rules (stable output). */
function normalize(policies: readonly ExceptionPolicy[]): ExceptionPolicy[] {
  const byPolicy = new Map<string, Set<string>>();
  for (const { policy, rules } of policies) {
    const set = byPolicy.get(policy) ?? new Set<string>();
    for (const rule of rules) if (rule) set.add(rule);
    byPolicy.set(policy, set);
  }
  return [...byPolicy.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([policy, rules]) => ({ policy, rules: [...rules].sort() }));
}

/** The exception as YAML (ends with a newline). */
export function policyExceptionYaml(options: ExceptionOptions): string {
  const { resource } = options;
  const namespace = options.namespace ?? resource.namespace ?? "kyverno";
  const policies = normalize(options.policies);
  const lines = [
    "apiVersion: kyverno.io/v2",
    "kind: PolicyException",
    "metadata:",
    `  name: ${yamlScalar(exceptionName(resource.kind, resource.name, "exception"))}`,
    `  namespace: ${yamlScalar(namespace)}`,
    "spec:",
    "  background: true",
    "  exceptions:",
  ];
  for (const { policy, rules } of policies) {
    lines.push(`    - policyName: ${yamlScalar(policy)}`, "      ruleNames:");
    for (const rule of rules) lines.push(`        - ${yamlScalar(rule)}`);
  }
  lines.push(
    "  match:",
    "    any:",
    "      - resources:",
    "          kinds:",
    `            - ${yamlScalar(resource.kind)}`,
    "          names:",
    `            - ${yamlScalar(resource.name)}`,
  );
  if (resource.namespace)
    lines.push("          namespaces:", `            - ${yamlScalar(resource.namespace)}`);
  return `${lines.join("\n")}\n`;
}
