/** CustomResourceDefinition objects turned into served resources, one per served version. */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import { AGE_COLUMN, DEFAULT_CUSTOM_COLUMNS, NAME_COLUMN } from "../table/builtin-columns.js";
import { evaluateJsonPath, parseJsonPath } from "../table/jsonpath.js";
import { compileStructuralSchema } from "./structural-schema.js";
import type { PrinterColumn, ResourceType } from "./types.js";

const CUSTOM_VERBS = [
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "create",
  "update",
  "watch",
] as const;

function obj(value: JsonValue | undefined): JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? value : {};
}

function strs(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** The resources a CRD serves (none when it is malformed or being deleted). */
export function resourcesOfCrd(crd: JsonObject): ResourceType[] {
  const spec = obj(crd.spec);
  const names = obj(spec.names);
  const group = typeof spec.group === "string" ? spec.group : "";
  const plural = typeof names.plural === "string" ? names.plural : "";
  const kind = typeof names.kind === "string" ? names.kind : "";
  const versions = Array.isArray(spec.versions) ? spec.versions.map(obj) : [];
  const storage = versions.find((v) => v.storage === true);
  if (group === "" || plural === "" || kind === "" || storage === undefined) return [];
  const storageVersion = `${group}/${String(storage.name)}`;
  const result: ResourceType[] = [];
  for (const v of versions) {
    if (v.served !== true || typeof v.name !== "string") continue;
    const subresources = obj(v.subresources);
    const schema = obj(obj(v.schema).openAPIV3Schema);
    const resource: ResourceType = {
      group,
      version: v.name,
      kind,
      listKind: typeof names.listKind === "string" ? names.listKind : `${kind}List`,
      plural,
      singular:
        typeof names.singular === "string" && names.singular !== "" ? names.singular : kind.toLowerCase(),
      shortNames: strs(names.shortNames),
      categories: strs(names.categories),
      namespaced: spec.scope === "Namespaced",
      verbs: CUSTOM_VERBS,
      subresources: [
        ...(subresources.status !== undefined ? ["status"] : []),
        ...(subresources.scale !== undefined ? ["scale"] : []),
      ],
      strategicMerge: false,
      generation: "nonMetadata",
      requireResourceVersion: true,
      returnDeletedObject: true,
      nameRule: "subdomain",
      selectableFields: strs(
        Array.isArray(v.selectableFields) ? v.selectableFields.map((f) => obj(f).jsonPath ?? null) : [],
      ).map((p) => p.replace(/^\./, "")),
      printerColumns: printerColumns(v),
      storageKey: `${group}/${plural}`,
      storageVersion,
      custom: true,
    };
    if (Object.keys(schema).length > 0) resource.schema = compileStructuralSchema(schema);
    result.push(resource);
  }
  return result;
}

function printerColumns(version: JsonObject): PrinterColumn[] | readonly PrinterColumn[] {
  const defined = Array.isArray(version.additionalPrinterColumns)
    ? version.additionalPrinterColumns.map(obj)
    : [];
  if (defined.length === 0) return DEFAULT_CUSTOM_COLUMNS;
  const columns: PrinterColumn[] = [NAME_COLUMN];
  for (const c of defined) {
    const jsonPath = typeof c.jsonPath === "string" ? c.jsonPath : "";
    if (jsonPath === ".metadata.creationTimestamp" && c.name === "Age") {
      columns.push({ ...AGE_COLUMN, priority: typeof c.priority === "number" ? c.priority : 0 });
      continue;
    }
    const column: PrinterColumn = {
      name: typeof c.name === "string" ? c.name : jsonPath,
      type: typeof c.type === "string" ? c.type : "string",
      description: typeof c.description === "string" ? c.description : "",
      priority: typeof c.priority === "number" ? c.priority : 0,
      jsonPath,
      extract: compileJsonPath(jsonPath),
    };
    if (typeof c.format === "string") column.format = c.format;
    columns.push(column);
  }
  return columns;
}

function compileJsonPath(path: string): (object: JsonObject) => JsonValue | undefined {
  const steps = parseJsonPath(path);
  return (object) => (steps === undefined ? undefined : evaluateJsonPath(steps, object)[0]);
}
