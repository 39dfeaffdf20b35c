/** Server-side Table rendering (what `kubectl get` asks for), and PartialObjectMetadata. */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import { metadataOf } from "../objects/meta.js";
import type { PrinterColumn, ResourceType } from "../registry/types.js";
import { humanDuration } from "./cells.js";

/** `includeObject` of a Table request. */
export type IncludeObject = "None" | "Metadata" | "Object";

/** The object reduced to `PartialObjectMetadata`. */
export function partialMetadata(object: JsonObject): JsonObject {
  return { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: metadataOf(object) };
}

function cell(column: PrinterColumn, object: JsonObject, now: number): JsonValue {
  if (column.compute !== undefined) return column.compute(object);
  const value = column.extract?.(object);
  if (value === undefined || value === null) return null;
  if (column.type === "date" && typeof value === "string") {
    const t = Date.parse(value);
    return Number.isNaN(t) ? value : humanDuration(now - t);
  }
  if (column.type === "string") return typeof value === "string" ? value : JSON.stringify(value);
  return value;
}

/** A Table of `objects` with the resource's printer columns (`listMeta` becomes the Table's metadata). */
export function toTable(
  resource: ResourceType,
  objects: readonly JsonObject[],
  listMeta: JsonObject,
  include: IncludeObject,
  now: number,
): JsonObject {
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata: listMeta,
    columnDefinitions: resource.printerColumns.map((c) => ({
      name: c.name,
      type: c.type,
      format: c.format ?? "",
      description: c.description,
      priority: c.priority,
    })),
    rows: objects.map((o) => {
      const row: JsonObject = { cells: resource.printerColumns.map((c) => cell(c, o, now)) };
      if (include === "Object") row.object = o;
      else if (include === "Metadata") row.object = partialMetadata(o);
      return row;
    }),
  };
}

/** The `includeObject` query parameter (default Metadata). */
export function includeObjectOf(query: URLSearchParams): IncludeObject {
  const v = query.get("includeObject");
  return v === "None" || v === "Object" ? v : "Metadata";
}
