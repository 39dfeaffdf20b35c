import type {
  GenerateForeach,
  GenerateTarget,
  Generation,
  JsonValue,
  KubeObject,
  LabelSelector,
} from "@kyverno-ts/api";
import type { ContextLoader } from "../engine-types.js";
import { ended, prepare } from "../evaluation/prepare.js";
import { evaluateExpression, type Scope, substitute } from "../evaluation/variables.js";
import type { GeneratedResource, RuleStatus } from "../response/types.js";

/** One object a generate rule wants to exist, plus the labels a controller puts on it. */

/** Outcome of a generate rule. */
export interface GenerateOutcome {
  status: RuleStatus;
  message: string;
  generated: GeneratedResource[];
}

/** Identity of the trigger and rule, for labels. */
export interface GenerateIdentity {
  policyName: string;
  policyNamespace: string;
  ruleName: string;
  trigger: { apiVersion: string; kind: string; name: string; namespace: string; uid: string };
}

type Step<T> = { ok: true; value: T } | { ok: false; error: string };

function asObject(v: JsonValue | undefined): { [key: string]: JsonValue } | undefined {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? v : undefined;
}

function labelsFor(id: GenerateIdentity, clone: string | undefined): Record<string, string> {
  const [group, version] = id.trigger.apiVersion.includes("/")
    ? id.trigger.apiVersion.split("/")
    : ["", id.trigger.apiVersion];
  const labels: Record<string, string> = {
    "app.kubernetes.io/managed-by": "kyverno",
    "generate.kyverno.io/policy-name": id.policyName,
    "generate.kyverno.io/policy-namespace": id.policyNamespace,
    "generate.kyverno.io/rule-name": id.ruleName,
    "generate.kyverno.io/trigger-group": group ?? "",
    "generate.kyverno.io/trigger-version": version ?? "",
    "generate.kyverno.io/trigger-kind": id.trigger.kind,
    "generate.kyverno.io/trigger-namespace": id.trigger.namespace,
    "generate.kyverno.io/trigger-uid": id.trigger.uid,
  };
  if (clone !== undefined) labels["generate.kyverno.io/clone-source"] = clone;
  return labels;
}

/** Drops server-populated metadata from a cloned source. */
function cleanClone(source: KubeObject, name: string, namespace: string): KubeObject {
  const { metadata = {}, status: _status, ...rest } = source;
  const {
    uid: _uid,
    resourceVersion: _rv,
    creationTimestamp: _ct,
    managedFields: _mf,
    ownerReferences: _or,
    generation: _g,
    selfLink: _sl,
    ...meta
  } = metadata;
  return { ...rest, metadata: { ...meta, name, ...(namespace ? { namespace } : {}) } } as KubeObject;
}

function substituted(scope: Scope, target: GenerateTarget, path: string): Step<GenerateTarget> {
  // Variables in `data` and in the identity fields; clone sources are literal (checked on load).
  const r = substitute(scope, target as unknown as JsonValue, path);
  if (!r.ok) return r;
  return { ok: true, value: r.value as unknown as GenerateTarget };
}

function fromTarget(
  t: GenerateTarget,
  id: GenerateIdentity,
  loader: ContextLoader,
): Step<GeneratedResource[]> {
  const name = t.name ?? "";
  const namespace = t.namespace ?? "";
  if (t.data !== undefined) {
    const data = asObject(t.data) ?? {};
    const meta = asObject(data.metadata) ?? {};
    const object = {
      ...data,
      apiVersion: t.apiVersion ?? "",
      kind: t.kind ?? "",
      metadata: { ...meta, name, ...(namespace ? { namespace } : {}) },
    } as KubeObject;
    return { ok: true, value: [{ object, labels: labelsFor(id, undefined) }] };
  }
  if (t.clone) {
    if (!loader.getResource)
      return { ok: false, error: "clone sources are not available (no resource loader)" };
    const src = loader.getResource(
      t.apiVersion ?? "",
      t.kind ?? "",
      t.clone.namespace ?? "",
      t.clone.name ?? "",
    );
    if (!src.ok) return { ok: false, error: `failed to get the clone source: ${src.error}` };
    const source = src.value as KubeObject;
    return {
      ok: true,
      value: [
        {
          object: cleanClone(source, name, namespace),
          labels: labelsFor(id, `${t.clone.namespace ?? ""}/${t.clone.name ?? ""}`),
        },
      ],
    };
  }
  if (t.cloneList) {
    if (!loader.listResources)
      return { ok: false, error: "clone sources are not available (no resource loader)" };
    const list = loader.listResources(
      t.cloneList.kinds ?? [],
      t.cloneList.namespace ?? "",
      t.cloneList.selector as LabelSelector | undefined,
    );
    if (!list.ok) return { ok: false, error: `failed to list clone sources: ${list.error}` };
    const out = (Array.isArray(list.value) ? list.value : []).map((item) => {
      const source = item as KubeObject;
      const srcName = source.metadata?.name ?? "";
      return {
        object: cleanClone(source, srcName, namespace),
        labels: labelsFor(id, `${t.cloneList?.namespace ?? ""}/${srcName}`),
      };
    });
    return { ok: true, value: out };
  }
  return { ok: false, error: "generate needs one of data, clone or cloneList" };
}

function forEachTarget(
  scope: Scope,
  fe: GenerateForeach,
  id: GenerateIdentity,
  loader: ContextLoader,
  preset: ReadonlySet<string>,
  path: string,
): Step<GeneratedResource[]> {
  const list = evaluateExpression(scope, fe.list);
  if (!list.ok) return list;
  const elements = list.value === null ? [] : Array.isArray(list.value) ? list.value : [list.value];
  const out: GeneratedResource[] = [];
  for (let index = 0; index < elements.length; index++) {
    const element = elements[index] as JsonValue;
    const s: Scope = {
      ...scope,
      ctx: { ...scope.ctx, element, elementIndex: index, element0: element, elementIndex0: index },
    };
    // The entry's context and preconditions through the step every rule and foreach entry takes, so
    // its messages are theirs (`failed to evaluate preconditions: …`).
    const s2 = prepare(s, fe, loader, preset, {
      context: `${path}/context`,
      preconditions: `${path}/preconditions`,
    });
    if (ended(s2)) {
      if (s2.status === "skip") continue;
      return { ok: false, error: s2.message };
    }
    const { list: _l, context: _c, preconditions: _p, ...target } = fe;
    const t = substituted(s2, target, path);
    if (!t.ok) return t;
    const r = fromTarget(t.value, id, loader);
    if (!r.ok) return r;
    out.push(...r.value);
  }
  return { ok: true, value: out };
}

/**
 * Computes the objects a generate rule wants (never writes them): `data` with variables
 * substituted, `clone` / `cloneList` from sources the loader provides, or per `foreach` element.
 * Context and preconditions of the rule are evaluated by the caller.
 */
export function generateOutcome(
  scope: Scope,
  generation: Generation,
  id: GenerateIdentity,
  loader: ContextLoader,
  preset: ReadonlySet<string>,
): GenerateOutcome {
  let generated: Step<GeneratedResource[]>;
  if (generation.foreach && generation.foreach.length > 0) {
    const all: GeneratedResource[] = [];
    generated = { ok: true, value: all };
    for (let i = 0; i < generation.foreach.length; i++) {
      const r = forEachTarget(
        scope,
        generation.foreach[i] as GenerateForeach,
        id,
        loader,
        preset,
        `/generate/foreach/${i}`,
      );
      if (!r.ok) {
        generated = r;
        break;
      }
      all.push(...r.value);
    }
  } else {
    const {
      synchronize: _s,
      orphanDownstreamOnPolicyDelete: _o,
      generateExisting: _g,
      foreach: _f,
      ...target
    } = generation;
    const t = substituted(scope, target, "/generate");
    generated = t.ok ? fromTarget(t.value, id, loader) : t;
  }
  if (!generated.ok)
    return { status: "error", message: `failed to generate resources: ${generated.error}`, generated: [] };
  return { status: "pass", message: "rule generated resources", generated: generated.value };
}
