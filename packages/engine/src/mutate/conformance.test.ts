/**
 * Upstream's `kyverno test` expectations for classic mutate policies of the conformance set, replayed
 * with the patch primitives alone: every rule of the policy is applied in order, then the result is
 * compared with the expected patched resource after dropping nulls and empty maps/lists, as the CLI does.
 * Rules with preconditions are applied only to resources upstream reports as patched (`pass`).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import { isObject } from "@kyverno-ts/k8s";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { applyJson6902, applyStrategicMerge, diffJson6902, parseJson6902 } from "./index.js";

const ROOT = fileURLToPath(new URL("../../../../../shared/conformance/kyverno-policies/", import.meta.url));

/** Folders whose mutate rules need no variables, or only `{{ request.object.… }}` ones. */
const FOLDERS = [
  "best-practices/add-safe-to-evict",
  "karpenter/add-karpenter-daemonset-priority-class",
  "karpenter/add-karpenter-donot-evict",
  "kubecost/enable-kubecost-continuous-rightsizing",
  "other/add-default-securitycontext",
  "other/add-env-vars-from-cm",
  "other/add-imagepullsecrets",
  "other/add-labels",
  "other/add-ndots",
  "other/add-node-affinity",
  "other/add-nodeSelector",
  "other/add-pod-proxies",
  "other/add-tolerations",
  "other/add-ttl-jobs",
  "other/create-pod-antiaffinity",
  "other/disable-automountserviceaccounttoken",
  "other/inject-sidecar-deployment",
  "other/mitigate-log4shell",
  "other/spread-pods-across-topology",
  "psa/add-psa-labels",
  // foreach over `request.object.…` lists, with `element.…` and `elementIndex` variables
  "other/add-image-as-env-var",
  "external-secret-operator/add-external-secret-prefix",
];

interface ResultLine {
  policy: string;
  rule: string;
  kind: string;
  resources: string[];
  result: string;
  patchedResources?: string;
}

interface Patch {
  strategicMerge?: JsonValue;
  json6902?: string;
}

interface Rule extends Patch {
  name: string;
  kinds: string[];
  preconditions: boolean;
  foreach: Array<Patch & { list: string }>;
}

const patchOf = (m: JsonObject): Patch => ({
  ...(m.patchStrategicMerge !== undefined ? { strategicMerge: m.patchStrategicMerge } : {}),
  ...(typeof m.patchesJson6902 === "string" ? { json6902: m.patchesJson6902 } : {}),
});

function readDocs(file: string): JsonObject[] {
  return parseAllDocuments(readFileSync(file, "utf8"))
    .map((d) => d.toJS() as JsonValue)
    .filter(isObject);
}

const str = (v: JsonValue | undefined): string => (typeof v === "string" ? v : "");
const list = (v: JsonValue | undefined): JsonValue[] => (Array.isArray(v) ? v : []);
const obj = (v: JsonValue | undefined): JsonObject => (isObject(v) ? v : {});

function rulesOf(policy: JsonObject): Rule[] {
  return list(obj(policy.spec).rules)
    .filter(isObject)
    .map((rule) => {
      const match = obj(rule.match);
      const blocks = [match, ...list(match.any).filter(isObject), ...list(match.all).filter(isObject)];
      const kinds = blocks.flatMap((b) => list(obj(b.resources).kinds).map(str));
      const mutate = obj(rule.mutate);
      return {
        name: str(rule.name),
        kinds: kinds.map((k) => k.split("/").at(-1) ?? k),
        preconditions: rule.preconditions !== undefined,
        foreach: list(mutate.foreach)
          .filter(isObject)
          .map((f) => ({ list: str(f.list), ...patchOf(f) })),
        ...patchOf(mutate),
      };
    });
}

function lookup(root: JsonValue, path: string): JsonValue | undefined {
  let value: JsonValue | undefined = root;
  for (const part of path.split(".").filter((p) => p !== ""))
    value = isObject(value) ? value[part] : undefined;
  return value;
}

/**
 * The only variables these folders use: `{{ request.object.a.b }}`, and in foreach `{{ element.a }}`
 * and `{{ elementIndex }}`.
 */
function substitute(text: string, vars: JsonObject): string {
  return text.replace(
    /\{\{\s*((?:request\.object|element)(?:\.[\w.]+)?|elementIndex)\s*\}\}/g,
    (_, path: string) => {
      const value = lookup(vars, path.replace("request.object", "request_object"));
      return typeof value === "string" ? value : JSON.stringify(value ?? null);
    },
  );
}

function applyRule(rule: Rule, resource: JsonObject): JsonValue {
  let current: JsonValue = resource;
  for (const loop of rule.foreach) {
    const items = list(lookup(resource, loop.list.replace(/^request\.object\./, "").replace(/\[\]$/, "")));
    for (const [elementIndex, element] of items.entries()) {
      if (!isObject(current)) throw new Error("patched resource is not a map");
      current = applyPatch(loop, current, { request_object: resource, element, elementIndex });
    }
  }
  if (rule.foreach.length > 0 || !isObject(current)) return current;
  return applyPatch(rule, current, { request_object: current });
}

function applyPatch(rule: Patch, resource: JsonObject, vars: JsonObject): JsonValue {
  if (rule.strategicMerge !== undefined) {
    const patch = JSON.parse(substitute(JSON.stringify(rule.strategicMerge), vars)) as JsonValue;
    const result = applyStrategicMerge(resource, patch);
    if (!result.ok) throw new Error(result.error);
    return result.value;
  }
  const parsed = parseJson6902(substitute(rule.json6902 ?? "", vars));
  if (!parsed.ok) throw new Error(parsed.error);
  const result = applyJson6902(resource, parsed.ops);
  if (!result.ok) throw new Error(result.error);
  return result.value;
}

/** What `kyverno test` compares: no nulls, no empty maps or lists. */
function tidy(value: JsonValue): JsonValue | undefined {
  if (value === null) return undefined;
  if (Array.isArray(value)) {
    const items = value.map(tidy).filter((v) => v !== undefined);
    return items.length === 0 ? undefined : items;
  }
  if (isObject(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      const t = tidy(v);
      if (t !== undefined) out[k] = t;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  return value;
}

const CLUSTER_SCOPED = new Set([
  "Namespace",
  "Node",
  "ClusterRole",
  "ClusterRoleBinding",
  "PersistentVolume",
]);

/** The CLI puts namespaced resources without a namespace into `default` (the actual and the expected one). */
function withDefaultNamespace(resource: JsonObject): JsonObject {
  const metadata = obj(resource.metadata);
  if (CLUSTER_SCOPED.has(str(resource.kind)) || metadata.namespace !== undefined) return resource;
  return { ...resource, metadata: { ...metadata, namespace: "default" } };
}

const nameOf = (r: JsonObject): string => str(obj(r.metadata).name);
const refName = (ref: string): string => ref.split("/").at(-1) ?? ref;

function loadCase(folder: string) {
  const testDir = join(ROOT, folder, ".kyverno-test");
  const [test] = readDocs(join(testDir, "kyverno-test.yaml"));
  if (test === undefined) throw new Error(`no test in ${folder}`);
  const policies = list(test.policies).flatMap((p) => readDocs(join(testDir, str(p))));
  const resources = list(test.resources).flatMap((r) => readDocs(join(testDir, str(r))));
  const results = list(test.results).filter(isObject) as unknown as ResultLine[];
  return { testDir, policies, resources, results };
}

describe.skipIf(!existsSync(ROOT))("classic mutate conformance", () => {
  for (const folder of FOLDERS) {
    it(folder, () => {
      const { testDir, policies, resources, results } = loadCase(folder);
      let checked = 0;
      for (const resource of resources) {
        const lines = results.filter(
          (l) => l.kind === resource.kind && l.resources.some((r) => refName(r) === nameOf(resource)),
        );
        if (lines.length === 0) continue;
        let current: JsonValue = resource;
        const changedBy = new Map<string, boolean>();
        for (const policy of policies) {
          for (const rule of rulesOf(policy)) {
            if (!rule.kinds.includes(str(resource.kind))) continue;
            const line = lines.find((l) => l.rule === rule.name && l.policy === nameOf(policy));
            if (rule.preconditions && line?.result !== "pass") continue;
            if (!isObject(current)) throw new Error("patched resource is not a map");
            const next = applyRule(rule, current);
            changedBy.set(rule.name, diffJson6902(current, next).length > 0);
            current = next;
          }
        }
        for (const line of lines) {
          if (line.result === "pass")
            expect(changedBy.get(line.rule), `${line.rule} on ${nameOf(resource)}`).toBe(true);
          if (line.result === "skip" && changedBy.has(line.rule))
            expect(changedBy.get(line.rule)).toBe(false);
          if (line.result !== "pass" || line.patchedResources === undefined) continue;
          const expected = readDocs(join(testDir, line.patchedResources)).find(
            (d) => d.kind === resource.kind && nameOf(d) === nameOf(resource),
          );
          expect(expected, `${line.patchedResources} has ${nameOf(resource)}`).toBeDefined();
          const actual = isObject(current) ? withDefaultNamespace(current) : current;
          expect(tidy(actual), `${folder}: ${nameOf(resource)}`).toEqual(
            tidy(withDefaultNamespace(expected ?? {})),
          );
          checked++;
        }
      }
      expect(checked, `${folder} compared nothing (${dirname(testDir)})`).toBeGreaterThan(0);
    });
  }
});
