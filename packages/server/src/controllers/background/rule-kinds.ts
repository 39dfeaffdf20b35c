/**
 * What a generate rule writes and reads, read from the rule: the kinds of its downstream (for
 * watching and deleting it) and its clone sources (for propagating their changes).
 */
import type { Rule } from "@kyverno-ts/api";
import { splitKind } from "./resource-data.js";

/** An apiVersion and kind. */
export interface KindRef {
  apiVersion: string;
  kind: string;
}

/** A clone source a rule reads: one object (`name`) or the objects of a cloneList selector. */
export interface CloneSource extends KindRef {
  namespace: string;
  name?: string;
}

type Target = {
  apiVersion?: string;
  kind?: string;
  clone?: { name?: string; namespace?: string };
  cloneList?: { kinds?: string[]; namespace?: string };
};

function targetsOf(rule: Rule): Target[] {
  const g = rule.generate;
  if (g === undefined) return [];
  return g.foreach !== undefined && g.foreach.length > 0 ? (g.foreach as Target[]) : [g as Target];
}

const hasVariables = (s: string | undefined): boolean => s?.includes("{{") ?? false;

/** The kinds a generate rule's downstream can be (variables left out). */
export function downstreamKinds(rule: Rule): KindRef[] {
  const out = new Map<string, KindRef>();
  for (const t of targetsOf(rule)) {
    const refs: KindRef[] = [];
    if (t.cloneList?.kinds) {
      for (const spelling of t.cloneList.kinds) {
        const k = splitKind(spelling);
        if (k) refs.push(k);
      }
    } else if (t.kind && !hasVariables(t.kind)) {
      const k = t.apiVersion ? { apiVersion: t.apiVersion, kind: t.kind } : splitKind(t.kind);
      if (k && !hasVariables(k.apiVersion)) refs.push(k);
    }
    for (const r of refs) out.set(`${r.apiVersion}/${r.kind}`, r);
  }
  return [...out.values()];
}

/** The clone sources of a rule whose location has no variables (those can be watched). */
export function cloneSources(rule: Rule): CloneSource[] {
  const out: CloneSource[] = [];
  for (const t of targetsOf(rule)) {
    if (t.clone && !hasVariables(t.clone.namespace) && !hasVariables(t.clone.name) && t.kind) {
      const k = t.apiVersion ? { apiVersion: t.apiVersion, kind: t.kind } : splitKind(t.kind);
      if (k)
        out.push({
          ...k,
          namespace: t.clone.namespace ?? "",
          ...(t.clone.name ? { name: t.clone.name } : {}),
        });
    }
    if (t.cloneList && !hasVariables(t.cloneList.namespace))
      for (const spelling of t.cloneList.kinds ?? []) {
        const k = splitKind(spelling);
        if (k) out.push({ ...k, namespace: t.cloneList.namespace ?? "" });
      }
  }
  return out;
}
