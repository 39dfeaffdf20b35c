import type { JsonValue, KubeObject } from "@kyverno-ts/api";
import { InputMessages } from "../output/messages.js";

/**
 * The parts of a `cli.kyverno.io/v1alpha1` Values document that evaluation reads; the api's
 * `ValuesSpec` (from a values file or a test's inline `values`) fits it.
 */
export interface VariableSources {
  globalValues?: Record<string, JsonValue>;
  policies?: Array<{
    name: string;
    rules?: Array<{ name: string; values?: Record<string, JsonValue> }>;
    resources?: Array<{ name: string; values?: Record<string, JsonValue> }>;
  }>;
  namespaceSelector?: Array<{ name: string; labels?: Record<string, string> }>;
  namespaces?: KubeObject[];
  /** Which kinds are subresources of which parents (`Scale` → `Deployment/scale`). */
  subresources?: Array<{ subresource: ResourceDescription; parentResource: ResourceDescription }>;
}

/** The parts of a discovery `APIResource` the `subresources` values entries use. */
interface ResourceDescription {
  name: string;
  kind: string;
  group?: string;
  version?: string;
}

/** How a resource is addressed when it is a subresource: the parent's kind and the subresource name. */
export interface SubresourceRequest {
  requestKind: { group: string; version: string; kind: string };
  subresource: string;
}

/**
 * Variables for one run, as upstream's CLI computes them: global values, overridden by the
 * per-policy per-resource values, overridden by `--set`; `request.operation` defaults to CREATE.
 * Per-rule values are looked up by exact rule name, as upstream's store does.
 */
export interface Variables {
  /** Values for evaluating `policy` on the resource named `resource`. */
  forResource(policy: string, resource: string): Record<string, JsonValue>;
  /** Per-rule values of `policy`'s rule `rule`, or undefined. */
  forRule(policy: string, rule: string): Record<string, JsonValue> | undefined;
  /** Labels of a namespace, from `namespaceSelector` entries and `namespaces` objects. */
  namespaceLabels(namespace: string): Record<string, string> | undefined;
  /**
   * For a resource whose group/version/kind is a `subresources` entry's subresource (a `Scale`), the
   * parent kind and subresource it is matched as (`Deployment/scale`), as upstream's CLI does; the
   * first matching entry wins.
   */
  subresourceOf(resource: KubeObject): SubresourceRequest | undefined;
}

function groupVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.lastIndexOf("/");
  return slash < 0
    ? { group: "", version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/**
 * Parses `--set` items (`k=v,k2=v2`, possibly repeated); values stay strings, as upstream.
 * Returns an error message for an item without `=`.
 */
export function parseSetFlags(
  items: readonly string[],
): { ok: true; value: Record<string, JsonValue> } | { ok: false; error: string } {
  const out: Record<string, JsonValue> = {};
  for (const item of items) {
    for (const raw of item.split(",")) {
      const part = raw.trim();
      if (part === "") continue;
      const eq = part.indexOf("=");
      if (eq <= 0) return { ok: false, error: InputMessages.invalidSet(part) };
      out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
    }
  }
  return { ok: true, value: out };
}

/** Builds the `Variables` of a run from an optional values document and `--set` values. */
export function createVariables(
  values: VariableSources | undefined,
  set: Record<string, JsonValue> = {},
): Variables {
  const namespaces = new Map<string, Record<string, string>>();
  for (const ns of values?.namespaces ?? []) {
    const name = ns.metadata?.name;
    if (name) namespaces.set(name, { ...(ns.metadata?.labels ?? {}) });
  }
  for (const entry of values?.namespaceSelector ?? [])
    namespaces.set(entry.name, { ...(entry.labels ?? {}) });
  const policies = values?.policies ?? [];
  return {
    forResource(policy, resource) {
      const out: Record<string, JsonValue> = { ...(values?.globalValues ?? {}) };
      for (const p of policies) {
        if (p.name !== policy) continue;
        for (const r of p.resources ?? []) {
          if (r.name === resource) Object.assign(out, r.values ?? {});
        }
      }
      Object.assign(out, set);
      if (!("request.operation" in out)) out["request.operation"] = "CREATE";
      return out;
    },
    forRule(policy, rule) {
      for (const p of policies) {
        if (p.name !== policy) continue;
        const r = p.rules?.find((x) => x.name === rule);
        if (r?.values && Object.keys(r.values).length > 0) return r.values;
      }
      return undefined;
    },
    namespaceLabels(namespace) {
      return namespaces.get(namespace);
    },
    subresourceOf(resource) {
      const { group, version } = groupVersion(
        typeof resource.apiVersion === "string" ? resource.apiVersion : "",
      );
      for (const entry of values?.subresources ?? []) {
        const sub = entry.subresource;
        if (sub.kind !== resource.kind || (sub.group ?? "") !== group || (sub.version ?? "") !== version)
          continue;
        const parent = entry.parentResource;
        const slash = sub.name.indexOf("/");
        return {
          requestKind: { group: parent.group ?? "", version: parent.version ?? "", kind: parent.kind },
          subresource: slash < 0 ? sub.name : sub.name.slice(slash + 1),
        };
      }
      return undefined;
    },
  };
}
