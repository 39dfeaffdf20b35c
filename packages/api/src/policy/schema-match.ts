/** Schemas of `match` / `exclude` blocks (policies and exceptions) and their structural checks. */
import type { Issue, PathSegment } from "../load/errors.js";
import { arr, isSet, obj, objects, structure } from "../schema/checks.js";
import { type Check, extend, omit, s } from "../schema/dsl.js";
import { labelSelector, nonEmptySelector } from "../schema/kube.js";
import type { JsonObject } from "./json.js";

/** The `resources` part of a filter. */
const resourceDescription = s.object(
  {
    kinds: s.strings(),
    name: s.string(),
    names: s.strings(),
    namespaces: s.strings(),
    annotations: s.stringMap(),
    selector: nonEmptySelector,
    namespaceSelector: labelSelector,
    operations: s.array(s.enum(["CREATE", "CONNECT", "UPDATE", "DELETE"])),
  },
  {
    deprecated: { name: 'use "names"' },
    checks: [
      (o, path) =>
        isSet(o.name) && isSet(o.names)
          ? [structure(path, "both name and names can not be specified together")]
          : [],
    ],
  },
);

const subject = s.object(
  {
    kind: s.enum(["User", "Group", "ServiceAccount"]),
    name: s.string(),
    namespace: s.string(),
    apiGroup: s.string(),
  },
  {
    required: ["kind", "name"],
    checks: [
      (o, path) =>
        o.kind === "ServiceAccount" && !isSet(o.namespace)
          ? [
              {
                code: "missing-field",
                path,
                message: 'missing required field "namespace" (required when kind is ServiceAccount)',
              },
            ]
          : [],
    ],
  },
);

const roles = s.array(s.string(), (items, path) =>
  items.flatMap((r, i): Issue[] =>
    typeof r === "string" && !r.trim().includes(":")
      ? [
          {
            code: "invalid-value",
            path: [...path, i],
            message: `role ${JSON.stringify(r)} must be in namespace:name format`,
          },
        ]
      : [],
  ),
);

/** One filter: resources plus who made the request. */
const resourceFilter = s.object({
  resources: resourceDescription,
  subjects: s.array(subject),
  roles,
  clusterRoles: s.strings(),
});

const notBoth: Check<JsonObject> = (o, path) =>
  isSet(o.any) && isSet(o.all) ? [structure(path, "can't specify any and all together")] : [];

const notMixed: Check<JsonObject> = (o, path) =>
  (isSet(o.any) || isSet(o.all)) && isSet(o.resources)
    ? [structure(path, "can't specify any/all together with resources")]
    : [];

/** Every filter of a `match` must name resources, with at least one kind, as upstream requires. */
const matchFilters: Check<JsonObject> = (o, path) => {
  const filters = filtersOf(o, path);
  if (filters.length === 0) filters.push({ filter: o, path: [...path] });
  return filters.flatMap(({ filter, path: at }): Issue[] => {
    const resources = obj(filter, "resources");
    if (!isSet(resources))
      return [structure(at, 'match resources not specified: "resources" must not be empty')];
    if (arr(resources, "kinds").length === 0) {
      return [
        structure(
          [...at, "resources"],
          "at least one kind must be specified: kinds is mandatory in match resources",
        ),
      ];
    }
    return [];
  });
};

const v1Block = extend(
  resourceFilter,
  { any: s.array(resourceFilter), all: s.array(resourceFilter) },
  { checks: [notBoth, notMixed] },
);
const v2Block = omit(v1Block, ["resources", "subjects", "roles", "clusterRoles"]);

/** `match` of a kyverno.io/v1 rule: `any`/`all`, or the legacy inline filter. */
export const v1Match = extend(v1Block, {}, { checks: [matchFilters] });
/** `exclude` of a kyverno.io/v1 rule. */
export const v1Exclude = v1Block;
/** `match` of a v2beta1 rule or a PolicyException: `any`/`all` only. */
export const v2Match = extend(v2Block, {}, { checks: [matchFilters] });
/** `exclude` of a v2beta1 rule. */
export const v2Exclude = v2Block;

/** Every filter of a match/exclude block with its path: `any[i]`, `all[i]`, or the block itself. */
export function filtersOf(
  block: JsonObject | undefined,
  path: readonly PathSegment[],
): Array<{ filter: JsonObject; path: PathSegment[] }> {
  if (block === undefined) return [];
  const out: Array<{ filter: JsonObject; path: PathSegment[] }> = [];
  for (const key of ["any", "all"]) {
    for (const [i, filter] of objects(block, key).entries()) out.push({ filter, path: [...path, key, i] });
  }
  if (isSet(block.resources) || isSet(block.subjects) || isSet(block.roles) || isSet(block.clusterRoles)) {
    out.push({ filter: block, path: [...path] });
  }
  return out;
}

/** The first of roles / clusterRoles / subjects a filter uses, if any. */
export function userInfoField(filter: JsonObject): string | undefined {
  return ["roles", "clusterRoles", "subjects"].find((k) => isSet(filter[k]));
}

/** The kinds a filter's resources name. */
export function kindsOf(filter: JsonObject): string[] {
  return arr(obj(filter, "resources"), "kinds").filter((k): k is string => typeof k === "string");
}
