/** What the server knows about one served resource (a built-in kind or one version of a CRD). */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import type { StructuralSchema } from "./structural-schema.js";

/** How `metadata.generation` moves: on spec changes, on any non-metadata change, or never set. */
export type GenerationPolicy = "spec" | "nonMetadata" | "none";

/** A printer column of `kubectl get` (server-side Table). */
export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description: string;
  priority: number;
  /** A simple JSONPath (`.status.phase`), compiled into `extract`; the cell is formatted by `type`. */
  jsonPath?: string;
  extract?: (object: JsonObject) => JsonValue | undefined;
  /** A cell computed and formatted by the column itself (built-in printers). */
  compute?: (object: JsonObject) => string | number | boolean | null;
}

/** One resource served at one group/version. */
export interface ResourceType {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: readonly string[];
  categories: readonly string[];
  namespaced: boolean;
  verbs: readonly string[];
  /** Subresources served (`status`, `scale`…). */
  subresources: readonly string[];
  /** Built-ins accept strategic merge patches; custom resources do not. */
  strategicMerge: boolean;
  generation: GenerationPolicy;
  /** Whether PUT requires `metadata.resourceVersion` (custom resources). */
  requireResourceVersion: boolean;
  /** DELETE answers with the deleted object instead of a success Status. */
  returnDeletedObject: boolean;
  /** Name validation of the kind. */
  nameRule: "subdomain" | "label" | "label1035" | "path";
  /** Fields usable in `fieldSelector` beyond `metadata.name` / `metadata.namespace`. */
  selectableFields: readonly string[];
  printerColumns: readonly PrinterColumn[];
  /** The storage key of the resource, shared by all its versions (`apps/deployments`). */
  storageKey: string;
  /** The apiVersion objects are stored at (CRD storage version). */
  storageVersion: string;
  /** Structural OpenAPI schema of a custom resource version, compiled (for pruning/defaulting/validation). */
  schema?: StructuralSchema;
  /** Whether this is served from a CRD. */
  custom: boolean;
  /**
   * Field conversion between this version and the storage version, for built-ins whose versions
   * differ in shape (`events.k8s.io/v1` Events over core/v1 storage); without it only `apiVersion` changes.
   */
  conversion?: { toServed(stored: JsonObject): JsonObject; toStorage(served: JsonObject): JsonObject };
}

/** `group/version` or `version` for the core group. */
export function apiVersionOf(t: { group: string; version: string }): string {
  return t.group === "" ? t.version : `${t.group}/${t.version}`;
}
