import type { KubeObject } from "@kyverno-ts/api";
import { matchWildcard } from "../wildcard/wildcard.js";

/** Group, version, kind and subresource of a request; `group` is empty for the core API group. */
export interface RequestKind {
  group: string;
  version: string;
  kind: string;
  subresource: string;
}

/** A kind selector from `resources.kinds`, split into parts; every part may hold `*` / `?` wildcards. */
export interface KindSelector {
  group: string;
  version: string;
  kind: string;
  /** Empty when the selector names the main resource only. */
  subresource: string;
}

const VERSION = /^v\d+((alpha|beta)\d*)?$/;
const STARTS_UPPER = /^[A-Z]/;
const STARTS_LOWER = /^[a-z]/;

const isVersionPart = (s: string): boolean => s === "*" || VERSION.test(s);

/** `Kind.sub` is the dotted spelling of `Kind/sub`; kinds never contain dots, groups may. */
function kindPart(group: string, version: string, kind: string): KindSelector {
  const dot = kind.indexOf(".");
  if (dot < 0) return { group, version, kind, subresource: "" };
  return { group, version, kind: kind.slice(0, dot), subresource: kind.slice(dot + 1) };
}

/**
 * Parses one entry of `resources.kinds` in any of Kyverno's spellings: `Kind`, `Kind.sub`, `Kind/sub`,
 * `v1/Kind`, `version/Kind/sub`, `group/version/Kind`, `group/version/Kind/sub`, and with a leading `*`
 * segment: any version of a kind, any kind's subresource (`scale`), or everything (`*` twice).
 * Where upstream's grammar is ambiguous (`*` in front), a lower-case segment is read as a subresource and
 * a capitalised one as a kind. Returns undefined for a selector with more than four segments.
 */
export function parseKindSelector(spec: string): KindSelector | undefined {
  const parts = spec.split("/");
  const [a = "", b = "", c = "", d = ""] = parts;
  switch (parts.length) {
    case 1:
      return kindPart("*", "*", a);
    case 2:
      if (a === "*" && b === "*") return { group: "*", version: "*", kind: "*", subresource: "*" };
      if (a === "*" && STARTS_LOWER.test(b)) return { group: "*", version: "*", kind: "*", subresource: b };
      if (isVersionPart(a)) return kindPart("*", a, b);
      return { group: "*", version: "*", kind: a, subresource: b };
    case 3:
      if (isVersionPart(a) && !STARTS_UPPER.test(c))
        return { group: "*", version: a, kind: b, subresource: c };
      return kindPart(a, b, c);
    case 4:
      return { group: a, version: b, kind: c, subresource: d };
    default:
      return undefined;
  }
}

/**
 * True when one `resources.kinds` entry selects the request. A selector without subresource does not
 * select a subresource request, except that any selector matching core `v1/Pod` also selects
 * `pods/ephemeralcontainers`, as upstream does for backward compatibility.
 */
export function matchKind(kindSpec: string, req: RequestKind): boolean {
  const sel = parseKindSelector(kindSpec);
  return sel !== undefined && matchKindSelector(sel, req);
}

/** Like `matchKind` for a selector parsed once with `parseKindSelector` (for compiled policies). */
export function matchKindSelector(sel: KindSelector, req: RequestKind): boolean {
  // A pattern always matches its own text, so equal parts need no glob match.
  if (sel.group !== req.group && !matchWildcard(sel.group, req.group)) return false;
  if (sel.version !== req.version && !matchWildcard(sel.version, req.version)) return false;
  if (sel.kind !== req.kind && !matchWildcard(sel.kind, req.kind)) return false;
  if (sel.subresource === req.subresource || matchWildcard(sel.subresource, req.subresource)) return true;
  return isPodEphemeralContainers(req);
}

/** Parses every entry of a `kinds` list (undefined for entries that are not selectors). */
export type KindListParser = (kinds: readonly string[]) => readonly (KindSelector | undefined)[];

/** The plain `KindListParser`, parsing on every call; engines pass one that remembers its lists. */
export function parseKindList(kinds: readonly string[]): (KindSelector | undefined)[] {
  return kinds.map(parseKindSelector);
}

/** True when any entry of a `kinds` list selects the request; see `matchKind`. */
export function matchKinds(
  kinds: readonly string[],
  req: RequestKind,
  parse: KindListParser = parseKindList,
): boolean {
  for (const sel of parse(kinds)) if (sel !== undefined && matchKindSelector(sel, req)) return true;
  return false;
}

function isPodEphemeralContainers(req: RequestKind): boolean {
  return (
    req.group === "" &&
    req.version === "v1" &&
    req.kind === "Pod" &&
    req.subresource === "ephemeralcontainers"
  );
}

/**
 * True when a `kinds` list names `kind` as a main resource in any spelling (`Pod`, `v1/Pod`, `apps/v1/Pod`),
 * without wildcards in the kind. Used by autogen, which only expands rules written for `Pod`.
 */
export function containsKind(kinds: readonly string[], kind: string): boolean {
  return kinds.some((k) => {
    const sel = parseKindSelector(k);
    return sel !== undefined && sel.kind === kind && sel.subresource === "";
  });
}

/**
 * Group, version and kind of an object from its `apiVersion` and `kind` (`apps/v1` → `apps`, `v1`;
 * `v1` → core group `""`). The subresource is empty: callers that handle subresource requests set it.
 */
export function resourceGvk(obj: KubeObject): RequestKind {
  const apiVersion = typeof obj.apiVersion === "string" ? obj.apiVersion : "";
  const kind = typeof obj.kind === "string" ? obj.kind : "";
  const slash = apiVersion.lastIndexOf("/");
  if (slash < 0) return { group: "", version: apiVersion, kind, subresource: "" };
  return { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), kind, subresource: "" };
}
