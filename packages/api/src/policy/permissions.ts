/**
 * Upstream's authorization check of the rules the background controller runs: a policy whose generate
 * or mutate-existing rules the controller's ServiceAccount could not carry out is rejected at
 * admission. Listing what to ask (`backgroundPermissionChecks`) is pure; the answers come from the
 * caller (a SubjectAccessReview per check in a cluster), and `permissionIssues` turns the denials into
 * upstream's messages. Kinds written with variables cannot be known before evaluation and are not
 * checked, as upstream; a namespace written with variables is asked (and printed) as written, as
 * upstream does, which only a cluster-wide grant allows.
 */
import { formatPath, type PathSegment } from "../load/errors.js";
import type { Policy, TargetSelector } from "./types.js";
import { hasVariable } from "./variables.js";

/** One verb on one resource that a rule needs the background controller to be allowed. */
export interface PermissionCheck {
  /** The rule part that needs it, as users write paths (`spec.rules[0].generate`). */
  readonly path: string;
  /** Which check: generated resources need every verb of a sync, mutated targets get and update. */
  readonly purpose: "generate" | "mutateExisting";
  readonly verb: "create" | "update" | "get" | "delete";
  /** API group (empty for the core group), version and kind as written; `*` when not written. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** Empty for the main resource. */
  readonly subresource: string;
  /** Empty for cluster-wide; as written otherwise (variables included, as upstream asks). */
  readonly namespace: string;
  /** Empty for any name. */
  readonly name: string;
}

/** The answer to one check: whether it is allowed; `reason` is the authorizer's, when it gave one. */
export interface PermissionDecision {
  readonly allowed: boolean;
  readonly reason?: string;
}

/** Answers checks; a SubjectAccessReview for `user` in a cluster. */
export type DecidePermission = (check: PermissionCheck) => PermissionDecision;

/** A denied check, as upstream reports it, with the path of the rule part. */
export interface PermissionIssue {
  readonly path: string;
  readonly message: string;
}

const GENERATE_VERBS = ["create", "update", "get", "delete"] as const;
const MUTATE_EXISTING_VERBS = ["get", "update"] as const;

interface Resource {
  group: string;
  version: string;
  kind: string;
  subresource: string;
}

/** Splits `apiVersion` plus a kind (`Deployment`, `Deployment/scale`, `apps/v1/Deployment`) into parts. */
function resourceOf(apiVersion: string, kind: string): Resource {
  const parts = kind.split("/");
  let kindPart = parts.at(-1) ?? "";
  let subresource = "";
  let prefix = parts.slice(0, -1);
  if (parts.length >= 2 && /^[a-z]/.test(kindPart)) {
    subresource = kindPart;
    kindPart = parts.at(-2) ?? "";
    prefix = parts.slice(0, -2);
  }
  const version = prefix.length > 0 ? prefix.join("/") : apiVersion;
  const slash = version.lastIndexOf("/");
  return {
    group: slash < 0 ? "" : version.slice(0, slash),
    version: (slash < 0 ? version : version.slice(slash + 1)) || "*",
    kind: kindPart,
    subresource,
  };
}

function literal(value: string | undefined): string {
  return value === undefined || hasVariable(value) ? "" : value;
}

function checksFor(
  path: readonly PathSegment[],
  purpose: PermissionCheck["purpose"],
  verbs: readonly PermissionCheck["verb"][],
  resource: Resource,
  namespace: string | undefined,
  name: string | undefined,
): PermissionCheck[] {
  if (resource.kind === "" || hasVariable(resource.kind) || hasVariable(resource.group)) return [];
  return verbs.map((verb) => ({
    path: formatPath(path),
    purpose,
    verb,
    ...resource,
    namespace: namespace ?? "",
    name: literal(name),
  }));
}

interface GenerateTarget {
  apiVersion?: string | undefined;
  kind?: string | undefined;
  namespace?: string | undefined;
  cloneList?: { kinds?: string[] | undefined } | undefined;
}

function generateChecks(g: GenerateTarget, path: readonly PathSegment[]): PermissionCheck[] {
  const kinds = g.cloneList?.kinds ?? [];
  if (kinds.length > 0)
    return kinds.flatMap((k) =>
      checksFor(path, "generate", GENERATE_VERBS, resourceOf("", k), g.namespace, undefined),
    );
  return checksFor(
    path,
    "generate",
    GENERATE_VERBS,
    resourceOf(g.apiVersion ?? "", g.kind ?? ""),
    g.namespace,
    undefined,
  );
}

function targetChecks(t: TargetSelector, path: readonly PathSegment[]): PermissionCheck[] {
  return checksFor(
    path,
    "mutateExisting",
    MUTATE_EXISTING_VERBS,
    resourceOf(t.apiVersion, t.kind),
    t.namespace,
    t.name,
  );
}

/**
 * Every permission the background controller needs for the policy's generate rules (create, update,
 * get, delete of what they generate, per cloneList kind) and mutate-existing rules (get and update of
 * each target), one check per verb.
 */
export function backgroundPermissionChecks(policy: Policy): PermissionCheck[] {
  return policy.spec.rules.flatMap((rule, i) => {
    const at: PathSegment[] = ["spec", "rules", i];
    const out: PermissionCheck[] = [];
    const g = rule.generate;
    if (g !== undefined) {
      if (g.foreach !== undefined && g.foreach.length > 0)
        g.foreach.forEach((fe, j) => {
          out.push(...generateChecks(fe, [...at, "generate", "foreach", j]));
        });
      else out.push(...generateChecks(g, [...at, "generate"]));
    }
    rule.mutate?.targets?.forEach((t, j) => {
      out.push(...targetChecks(t, [...at, "mutate", "targets", j]));
    });
    return out;
  });
}

/** `group/version/Kind` as upstream prints a resource (`v1/Secret` for the core group). */
function gvk(c: PermissionCheck): string {
  return [c.group, c.version, c.kind].filter((p) => p !== "").join("/");
}

/**
 * The denied checks of a policy in upstream's words, for the policy validation webhook: `user` is the
 * background controller's ServiceAccount (`system:serviceaccount:kyverno:kyverno-background-controller`)
 * and `decide` answers each of `backgroundPermissionChecks(policy)`.
 */
export function permissionIssues(policy: Policy, user: string, decide: DecidePermission): PermissionIssue[] {
  return backgroundPermissionChecks(policy)
    .filter((c) => !decide(c).allowed)
    .map((c) => {
      const denied = `${user} does not have permissions to '${c.verb}' resource ${gvk(c)}/${c.subresource}/${c.namespace}`;
      return c.purpose === "generate"
        ? { path: c.path, message: `${denied}. Grant proper permissions to the background controller` }
        : {
            path: c.path,
            message: `auth check fails, additional privileges are required for the service account '${user}': ${denied}`,
          };
    });
}
