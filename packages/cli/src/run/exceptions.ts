import type { PolicyException } from "@kyverno-ts/api";
import { matchWildcard } from "@kyverno-ts/engine";
import { ExceptionMessages } from "../output/messages.js";
import type { SourcedPolicy } from "./compile.js";

/** The namespace an exception is taken from (`default` when its file names none), as the engine reads it. */
function namespaceOf(exception: PolicyException): string {
  return exception.metadata.namespace ?? "default";
}

/** Whether exceptions from `namespace` are accepted (`*` and other wildcards allowed). */
export function acceptsNamespace(accepted: readonly string[], namespace: string): boolean {
  return accepted.some((a) => matchWildcard(a, namespace));
}

/**
 * Warnings about exceptions that cannot apply: one per exception ignored because its namespace is
 * not accepted, and one per exception entry naming a policy that is not loaded (`name` for a
 * ClusterPolicy, `ns/name` for a Policy; wildcards are not names, so they are not checked).
 */
export function exceptionWarnings(
  exceptions: readonly PolicyException[],
  policies: readonly SourcedPolicy[],
  accepted: readonly string[],
): string[] {
  const keys = new Set(
    policies.map(({ policy }) =>
      policy.kind === "Policy"
        ? `${policy.metadata.namespace ?? "default"}/${policy.metadata.name}`
        : policy.metadata.name,
    ),
  );
  const out: string[] = [];
  for (const ex of exceptions) {
    const ns = namespaceOf(ex);
    const name = `${ns}/${ex.metadata.name}`;
    if (!acceptsNamespace(accepted, ns)) {
      out.push(ExceptionMessages.ignoredNamespace(name, ns, accepted));
      continue;
    }
    for (const entry of ex.spec.exceptions) {
      if (keys.has(entry.policyName) || entry.policyName.includes("*")) continue;
      out.push(ExceptionMessages.unknownPolicy(name, entry.policyName));
    }
  }
  return out;
}
