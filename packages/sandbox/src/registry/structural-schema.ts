/** The structural schema of a custom resource version, compiled for the pruning and checks of schema-rules.ts. */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import { asObject } from "../objects/meta.js";

/**
 * A node of a custom resource's structural schema, compiled once when its CRD is registered: its
 * children, defaults, enum and pattern ready, so a request walks it without looking anything up twice
 * or compiling a regular expression per value.
 */
export interface StructuralSchema {
  readonly props: ReadonlyMap<string, StructuralSchema>;
  /** The properties with a `default`, applied when missing. */
  readonly defaults: ReadonlyArray<readonly [string, JsonValue, StructuralSchema]>;
  readonly additional: StructuralSchema | undefined;
  /** `additionalProperties: true` or `x-kubernetes-preserve-unknown-fields`: unknown fields kept. */
  readonly keepUnknown: boolean;
  readonly items: StructuralSchema | undefined;
  readonly type: string;
  readonly nullable: boolean;
  readonly intOrString: boolean;
  /** The enum's values as JSON text, and as shown in the error. */
  readonly enumJson: ReadonlySet<string> | undefined;
  readonly enumShown: readonly string[];
  readonly required: readonly string[];
  /** The schema as written (bounds and the pattern's text for messages). */
  readonly schema: JsonObject;
  /** The pattern, compiled (undefined when absent or not a valid expression, as before). */
  readonly pattern: RegExp | undefined;
}

/**
 * Compiles a CRD version's `openAPIV3Schema` (when the CRD is registered; requests only walk it).
 * A schema object reached twice is compiled once.
 */
export function compileStructuralSchema(schema: JsonObject): StructuralSchema {
  return compiled(schema, new Map());
}

function compiled(schema: JsonObject, nodes: Map<JsonObject, StructuralSchema>): StructuralSchema {
  const known = nodes.get(schema);
  if (known !== undefined) return known;
  const props = new Map<string, StructuralSchema>();
  const defaults: Array<readonly [string, JsonValue, StructuralSchema]> = [];
  const node: StructuralSchema = {
    props,
    defaults,
    additional: undefined,
    keepUnknown: false,
    items: undefined,
    type: typeof schema.type === "string" ? schema.type : "",
    nullable: schema.nullable === true,
    intOrString: schema["x-kubernetes-int-or-string"] === true,
    enumJson: Array.isArray(schema.enum) ? new Set(schema.enum.map((e) => JSON.stringify(e))) : undefined,
    enumShown: Array.isArray(schema.enum)
      ? schema.enum.map((e) => (typeof e === "string" ? e : JSON.stringify(e)))
      : [],
    required: Array.isArray(schema.required)
      ? schema.required.filter((r): r is string => typeof r === "string")
      : [],
    schema,
    pattern: typeof schema.pattern === "string" ? regex(schema.pattern) : undefined,
  };
  // Registered before the children: a schema that refers to itself ends here.
  nodes.set(schema, node);
  const mutable = node as { -readonly [K in keyof StructuralSchema]: StructuralSchema[K] };
  for (const [key, sub] of Object.entries(asObject(schema.properties) ?? {})) {
    const s = asObject(sub);
    if (s === undefined) continue;
    const child = compiled(s, nodes);
    props.set(key, child);
    if (s.default !== undefined) defaults.push([key, s.default, child]);
  }
  const additional = asObject(schema.additionalProperties);
  if (additional !== undefined) mutable.additional = compiled(additional, nodes);
  mutable.keepUnknown =
    schema["x-kubernetes-preserve-unknown-fields"] === true || schema.additionalProperties === true;
  const items = asObject(schema.items);
  if (items !== undefined) mutable.items = compiled(items, nodes);
  return node;
}

function regex(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, "u");
  } catch {
    return undefined;
  }
}
