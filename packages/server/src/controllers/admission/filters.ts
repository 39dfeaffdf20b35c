/**
 * Kyverno's ConfigMap (`kyverno` in Kyverno's namespace): which admission requests are never
 * evaluated (`resourceFilters`, `excludeGroups`, `excludeUsernames`, `excludeRoles`,
 * `excludeClusterRoles`) and the webhook settings the kube glue uses.
 */
import type { UserInfo } from "@kyverno-ts/engine";
import { matchWildcard } from "@kyverno-ts/engine";
import type { RequesterRoles } from "./request.js";

/** One `[Kind,Namespace,Name]` entry of `resourceFilters`; each part may hold wildcards. */
export interface ResourceFilterEntry {
  /** `Kind`, `Kind/subresource`, `group/version/Kind` or `*` forms, as written. */
  kind: string;
  namespace: string;
  name: string;
  /** `kind` split into its parts once, when the configuration is read. */
  selector: { group: string; version: string; kind: string; subresource: string };
}

/** The admission-relevant settings of Kyverno's ConfigMap. */
export interface KyvernoConfig {
  resourceFilters: readonly ResourceFilterEntry[];
  excludeGroups: readonly string[];
  /** Usernames to skip; entries starting with `!` re-include a username. */
  excludeUsernames: readonly string[];
  excludeRoles: readonly string[];
  excludeClusterRoles: readonly string[];
  /** The `webhooks` key (namespace/object selectors for the webhook configurations), parsed JSON. */
  webhooks?: unknown;
  /**
   * `generateSuccessEvents` (upstream's key, default false): the background controller's
   * `PolicyApplied` Events of generate and mutate-existing rules.
   */
  generateSuccessEvents?: boolean;
}

/** Upstream Helm chart defaults of `resourceFilters` (minus the entries naming the chart's own objects). */
export const DEFAULT_RESOURCE_FILTERS =
  "[Event,*,*] [*/*,kube-system,*] [*/*,kube-public,*] [*/*,kube-node-lease,*] [Node,*,*] [Node/*,*,*] " +
  "[APIService,*,*] [APIService/*,*,*] [TokenReview,*,*] [SubjectAccessReview,*,*] " +
  "[SelfSubjectAccessReview,*,*] [Binding,*,*] [Pod/binding,*,*] [ReplicaSet,*,*] [ReplicaSet/*,*,*] " +
  "[EphemeralReport,*,*] [ClusterEphemeralReport,*,*]";

/** The configuration upstream's Helm chart installs (used when no ConfigMap is given). */
export function defaultKyvernoConfig(): KyvernoConfig {
  return parseKyvernoConfig({
    resourceFilters: DEFAULT_RESOURCE_FILTERS,
    excludeGroups: "system:nodes",
  }).config;
}

/** Kyverno's own kinds, never evaluated at admission (upstream's `ExcludeKyvernoResources`). */
const KYVERNO_KINDS: ReadonlySet<string> = new Set([
  "ClusterPolicyReport",
  "PolicyReport",
  "AdmissionReport",
  "ClusterAdmissionReport",
  "BackgroundScanReport",
  "ClusterBackgroundScanReport",
  "EphemeralReport",
  "ClusterEphemeralReport",
  "UpdateRequest",
]);

/** A filter kind split into its parts: `Kind`, `Kind/sub`, `*\/*`, `version/Kind`, `group/version/Kind[/sub]`. */
function splitFilterKind(spec: string): ResourceFilterEntry["selector"] {
  const parts = spec.split("/");
  const [a = "", b = "", c = "", d = ""] = parts;
  if (parts.length === 1) return { group: "*", version: "*", kind: a, subresource: "" };
  if (parts.length === 2)
    return /^v\d|^\*$/.test(a) && /^[A-Z]/.test(b)
      ? { group: "*", version: a, kind: b, subresource: "" }
      : { group: "*", version: "*", kind: a, subresource: b };
  if (parts.length === 3) return { group: a, version: b, kind: c, subresource: "" };
  return { group: a, version: b, kind: c, subresource: d };
}

/** Parses `resourceFilters`: a sequence of `[kind,namespace,name]` entries; missing parts are empty. */
export function parseResourceFilters(text: string): ResourceFilterEntry[] {
  const out: ResourceFilterEntry[] = [];
  for (const match of text.matchAll(/\[([^[\]]*)\]/g)) {
    const [kind = "", namespace = "", name = ""] = (match[1] ?? "").split(",").map((p) => p.trim());
    if (kind !== "") out.push({ kind, namespace, name, selector: splitFilterKind(kind) });
  }
  return out;
}

function list(text: string | undefined): string[] {
  return (text ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/**
 * Reads the ConfigMap's `data`. Unknown keys are ignored (they belong to other controllers); a
 * `webhooks` value that is not JSON is reported in `problems` and left out.
 */
export function parseKyvernoConfig(data: Readonly<Record<string, string>>): {
  config: KyvernoConfig;
  problems: string[];
} {
  const problems: string[] = [];
  const config: KyvernoConfig = {
    resourceFilters: parseResourceFilters(data.resourceFilters ?? ""),
    excludeGroups: list(data.excludeGroups),
    excludeUsernames: list(data.excludeUsernames),
    excludeRoles: list(data.excludeRoles),
    excludeClusterRoles: list(data.excludeClusterRoles),
  };
  const success = data.generateSuccessEvents?.trim() ?? "";
  if (success !== "") {
    // Go's strconv.ParseBool, as upstream reads the key.
    if (["1", "t", "T", "TRUE", "true", "True"].includes(success)) config.generateSuccessEvents = true;
    else if (!["0", "f", "F", "FALSE", "false", "False"].includes(success))
      problems.push(
        `generateSuccessEvents: "${success}" is not a boolean (true or false); success events stay off`,
      );
  }
  if (data.webhooks !== undefined && data.webhooks.trim() !== "") {
    try {
      config.webhooks = JSON.parse(data.webhooks);
    } catch (error) {
      problems.push(`webhooks: not valid JSON: ${(error as Error).message}`);
    }
  }
  return { config, problems };
}

const NONE: readonly string[] = [];

/** True when a pattern matches a value (a loop: this runs for every admission request). */
function anyMatch(patterns: readonly string[], values: readonly string[]): boolean {
  for (let i = 0; i < patterns.length; i++)
    for (let j = 0; j < values.length; j++)
      if (matchWildcard(patterns[i] as string, values[j] as string)) return true;
  return false;
}

/**
 * True when the requester is excluded from processing: its username, a group, a role or a cluster
 * role is listed, and the username is not re-included by a `!name` entry.
 */
export function isExcludedRequester(
  config: KyvernoConfig,
  user: UserInfo | undefined,
  roles: RequesterRoles | undefined,
): boolean {
  const username = user?.username ?? "";
  let excluded = false;
  for (const entry of config.excludeUsernames) {
    if (!entry.startsWith("!")) excluded ||= matchWildcard(entry, username);
    else if (matchWildcard(entry.slice(1), username)) return false; // re-included
  }
  return (
    excluded ||
    anyMatch(config.excludeGroups, user?.groups ?? NONE) ||
    anyMatch(config.excludeRoles, roles?.roles ?? NONE) ||
    anyMatch(config.excludeClusterRoles, roles?.clusterRoles ?? NONE)
  );
}

/**
 * True when a `resourceFilters` entry (or Kyverno's own kinds) covers the request: kind (with
 * group/version/subresource), namespace and name all match with wildcards.
 */
export function isFilteredResource(
  config: KyvernoConfig,
  target: {
    group: string;
    version: string;
    kind: string;
    subresource: string;
    namespace: string;
    name: string;
  },
): boolean {
  if (KYVERNO_KINDS.has(target.kind)) return true;
  return config.resourceFilters.some(
    (f) =>
      matchWildcard(f.selector.kind, target.kind) &&
      matchWildcard(f.selector.subresource, target.subresource) &&
      matchWildcard(f.selector.group, target.group) &&
      matchWildcard(f.selector.version, target.version) &&
      matchWildcard(f.namespace, target.namespace) &&
      matchWildcard(f.name, target.name),
  );
}
