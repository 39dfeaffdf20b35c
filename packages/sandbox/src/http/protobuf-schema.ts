/**
 * Table-driven decoding of Kubernetes protobuf messages into the JSON the same Go object marshals
 * to. A schema maps field numbers (from k8s.io/api's `generated.proto`) to JSON names and types.
 *
 * JSON presence follows Go: gogo-protobuf always writes non-pointer fields (zero or not) and pointer
 * fields only when set, so
 * - messages (and Time, Quantity, IntOrString) are emitted when present on the wire: `resources: {}`,
 *   `strategy: {}`, template `creationTimestamp: null`;
 * - scalars are dropped when zero (`omitempty`) unless marked `keep` (pointer fields such as
 *   `replicas: 0`, and fields without `omitempty` such as `containerPort`);
 * - lists and maps marked `null` show as `null` when empty (no `omitempty`, e.g. ClusterRole `rules`).
 * Fields the schema does not know are skipped, as Go skips unknown fields.
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import { readFields, readPacked, WireError, type WireField, wireTypeOf } from "./protobuf-wire.js";

/** A field's value type: a scalar, one of apimachinery's special messages, or a nested message. */
export type ValueType =
  | "string"
  | "bytes"
  | "int32"
  | "int64"
  | "bool"
  | "time"
  | "quantity"
  | "intOrString"
  | (() => Schema);

/** How one protobuf field maps to JSON. */
export interface Field {
  readonly name: string;
  readonly type: ValueType;
  /** `single` value, `list` (repeated), `map` (map<string, type>), or `inline` (embedded struct). */
  readonly shape: "single" | "list" | "map" | "inline";
  /** Keep zero values (pointer fields, fields without `omitempty`). */
  readonly keep: boolean;
  /** An absent list or map shows as `null` (no `omitempty`). */
  readonly nullable: boolean;
}

/** A message: field number → field. */
export type Schema = Readonly<Record<number, Field>>;

/** Options of a field: `list` (repeated), `keep` (zero values kept), `null` (absent list/map → null). */
export type Flag = "list" | "keep" | "null";

function field(name: string, type: ValueType, flags: readonly Flag[]): Field {
  return {
    name,
    type,
    shape: flags.includes("list") ? "list" : "single",
    keep: flags.includes("keep"),
    nullable: flags.includes("null"),
  };
}

export const str = (name: string, ...flags: Flag[]): Field => field(name, "string", flags);
export const bytes = (name: string, ...flags: Flag[]): Field => field(name, "bytes", flags);
export const i32 = (name: string, ...flags: Flag[]): Field => field(name, "int32", flags);
export const i64 = (name: string, ...flags: Flag[]): Field => field(name, "int64", flags);
export const bool = (name: string, ...flags: Flag[]): Field => field(name, "bool", flags);
export const time = (name: string, ...flags: Flag[]): Field => field(name, "time", flags);
export const quantity = (name: string, ...flags: Flag[]): Field => field(name, "quantity", flags);
export const intOrString = (name: string, ...flags: Flag[]): Field => field(name, "intOrString", flags);
export const msg = (name: string, schema: () => Schema, ...flags: Flag[]): Field =>
  field(name, schema, flags);
/** A `map<string, value>` field (entries are messages with key 1 and value 2). */
export const map = (name: string, value: ValueType = "string", ...flags: Flag[]): Field => ({
  ...field(name, value, flags),
  shape: "map",
});
/** An embedded Go struct (`json:",inline"`): its fields are merged into the parent object. */
export const inline = (schema: () => Schema): Field => ({ ...field("", schema, []), shape: "inline" });

const TIMESTAMP: Schema = { 1: i64("seconds"), 2: i32("nanos") };
const QUANTITY: Schema = { 1: str("string") };
const INT_OR_STRING: Schema = { 1: i64("type"), 2: i32("intVal"), 3: str("strVal") };
const MAX_DEPTH = 64;

/** Decodes one message with its schema. */
export function decodeMessage(buf: Buffer, schema: Schema, depth = 0): JsonObject {
  if (depth > MAX_DEPTH) throw new WireError("proto: message nested too deeply");
  const out: JsonObject = {};
  for (const f of readFields(buf)) {
    const spec = schema[f.num];
    if (spec === undefined) continue;
    switch (spec.shape) {
      case "inline":
        Object.assign(out, decodeValue(f, spec, depth));
        break;
      case "map": {
        const [key, value] = decodeEntry(f, spec, depth);
        let entries = out[spec.name];
        if (!isObject(entries)) {
          entries = {};
          out[spec.name] = entries;
        }
        // An own property even for `__proto__`, as JSON.parse makes it.
        Object.defineProperty(entries, key, { value, enumerable: true, writable: true, configurable: true });
        break;
      }
      case "list": {
        const values =
          f.wire === "bytes" && isNumeric(spec.type) ? unpack(f, spec) : [decodeValue(f, spec, depth)];
        const list = out[spec.name];
        if (Array.isArray(list)) list.push(...values);
        else out[spec.name] = values;
        break;
      }
      case "single":
        out[spec.name] = decodeValue(f, spec, depth);
    }
  }
  for (const spec of Object.values(schema)) {
    const value = out[spec.name];
    if (value === undefined) {
      if (spec.nullable) out[spec.name] = null;
    } else if (spec.shape === "single" && !spec.keep && isScalar(spec.type) && isZero(value))
      delete out[spec.name];
  }
  return out;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isScalar(type: ValueType): boolean {
  return type === "string" || type === "bytes" || isNumeric(type);
}

function isZero(value: JsonValue): boolean {
  return value === "" || value === 0 || value === false;
}

function isNumeric(type: ValueType): boolean {
  return type === "int32" || type === "int64" || type === "bool";
}

function unpack(f: WireField, spec: Field): JsonValue[] {
  return readPacked(bytesOf(f, spec)).map((v) => scalar({ num: f.num, wire: "varint", value: v }, spec));
}

function decodeEntry(f: WireField, spec: Field, depth: number): [string, JsonValue] {
  let key = "";
  let value: JsonValue | undefined;
  for (const e of readFields(bytesOf(f, spec))) {
    if (e.num === 1) key = bytesOf(e, spec).toString("utf8");
    else if (e.num === 2) value = decodeValue(e, spec, depth);
  }
  return [key, value ?? zeroOf(spec.type)];
}

/** The JSON of a Go zero value (a map entry without its value). */
function zeroOf(type: ValueType): JsonValue {
  if (typeof type === "function") return {};
  return {
    string: "",
    bytes: "",
    int32: 0,
    int64: 0,
    bool: false,
    time: null,
    quantity: "0",
    intOrString: 0,
  }[type];
}

function bytesOf(f: WireField, spec: Field): Buffer {
  if (f.wire !== "bytes") throw wrongWireType(f, spec);
  return f.value;
}

function wrongWireType(f: WireField, spec: Field): WireError {
  return new WireError(`proto: wrong wireType = ${wireTypeOf(f)} for field ${spec.name || "inline"}`);
}

function scalar(f: WireField, spec: Field): JsonValue {
  if (f.wire !== "varint") throw wrongWireType(f, spec);
  switch (spec.type) {
    case "int32":
      return Number(BigInt.asIntN(32, f.value));
    case "int64":
      return Number(BigInt.asIntN(64, f.value));
    default:
      return f.value !== 0n;
  }
}

function decodeValue(f: WireField, spec: Field, depth: number): JsonValue {
  const type = spec.type;
  if (typeof type === "function") return decodeMessage(bytesOf(f, spec), type(), depth + 1);
  switch (type) {
    case "int32":
    case "int64":
    case "bool":
      return scalar(f, spec);
    case "string":
      return bytesOf(f, spec).toString("utf8");
    case "bytes":
      return bytesOf(f, spec).toString("base64");
    case "time": {
      const buf = bytesOf(f, spec);
      return buf.length === 0 ? null : timeOf(decodeMessage(buf, TIMESTAMP, depth + 1));
    }
    case "quantity": {
      const q = decodeMessage(bytesOf(f, spec), QUANTITY, depth + 1);
      return typeof q.string === "string" ? q.string : "0";
    }
    case "intOrString": {
      const v = decodeMessage(bytesOf(f, spec), INT_OR_STRING, depth + 1);
      return v.type === 1 ? (typeof v.strVal === "string" ? v.strVal : "") : Number(v.intVal ?? 0);
    }
  }
}

/** metav1.Time (zero, an empty message, is `null`): RFC 3339 in whole seconds, as its JSON is. */
function timeOf(ts: JsonObject): string {
  const ms = Number(ts.seconds ?? 0) * 1000;
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) throw new WireError("proto: timestamp out of range");
  return `${new Date(ms).toISOString().slice(0, -5)}Z`;
}
