/**
 * Conversions between JSON and CEL values, as Kubernetes' unstructured conversion does: whole numbers
 * become `int`, other numbers `double`, objects `map(string, dyn)`, arrays `list(dyn)`. Objects are
 * wrapped and their fields converted on first read (see `toCelValue`); the value cache converts a
 * request's objects once for all its policies.
 * Opaque values of the libraries (optionals, quantities, images, …) are maps with one marker key.
 */
import {
  type CelInput,
  type CelList,
  type CelMap,
  type CelValue,
  celMap,
  isCelList,
  isCelMap,
  isCelUint,
} from "@bufbuild/cel";
import type { JsonValue } from "@kyverno-ts/api";

/**
 * Converts JSON into CEL values (whole numbers as `int`). Objects are wrapped, not copied: a
 * field is converted when an expression first reads it (objects and lists are then kept), so a
 * policy pays for what it reads.
 */
export function toCelValue(value: JsonValue | undefined): CelValue {
  if (value === undefined || value === null) return null;
  switch (typeof value) {
    case "number":
      return Number.isInteger(value) && Number.isSafeInteger(value) ? BigInt(value) : value;
    case "string":
    case "boolean":
      return value;
  }
  if (Array.isArray(value)) return valueList(value.map(toCelValue));
  return new JsonMap(value).asCelMap();
}

/**
 * `@bufbuild/cel`'s brand of its maps: `isCelMap(v)` is `Symbol.for("@bufbuild/cel/map") in v`
 * (0.6.1, pinned exactly; `values.test.ts` checks the library still recognises these maps). A
 * map carrying it is read directly, without the library's `celMap` wrapper converting (`toCel`)
 * every value read: these maps only ever hold CEL values.
 */
const CEL_MAP_BRAND = Symbol.for("@bufbuild/cel/map");
const BRAND = Object.freeze({});

/**
 * A map `@bufbuild/cel` reads as its own (see above): it must only hold CEL values, and `has(key)`
 * must be `get(key) != null`, as the library's maps answer.
 */
export abstract class DirectCelMap {
  readonly [CEL_MAP_BRAND] = BRAND;

  /** This map as the library's type. */
  asCelMap(): CelMap {
    return this as unknown as CelMap;
  }
}

const CEL_LIST_BRAND = Symbol.for("@bufbuild/cel/list");

/**
 * A list of CEL values `@bufbuild/cel` reads as its own (its brand, as for maps above), whose items
 * the planner iterates directly: `celList` would convert (`toCel`) every item read.
 */
export class ValueList {
  readonly [CEL_LIST_BRAND] = BRAND;

  constructor(readonly items: readonly CelValue[]) {}

  get size(): number {
    return this.items.length;
  }

  get(index: number): CelValue | undefined {
    return index >= 0 && index < this.items.length ? this.items[index] : undefined;
  }

  values(): ArrayIterator<CelValue> {
    return this.items.values();
  }

  [Symbol.iterator](): ArrayIterator<CelValue> {
    return this.items.values();
  }
}

/** A CEL list of these values (kept as they are, not copied). */
export function valueList(items: readonly CelValue[]): CelList {
  return new ValueList(items) as unknown as CelList;
}

/**
 * A JSON object seen as a CEL map, converting each field on first read. Behaves as
 * `celMap(new Map(...))` does: only string keys are found, and `has` is false for a null field
 * (the library's `has` is `get(key) != undefined`).
 */
class JsonMap extends DirectCelMap implements ReadonlyMap<string, CelValue> {
  private converted: Map<string, CelValue> | undefined;
  private count = -1;

  constructor(private readonly json: { readonly [key: string]: JsonValue }) {
    super();
  }

  get size(): number {
    if (this.count < 0) {
      let n = 0;
      for (const key in this.json) if (this.json[key] !== undefined) n++;
      this.count = n;
    }
    return this.count;
  }

  has(key: string): boolean {
    return this.get(key) != null;
  }

  get(key: string): CelValue | undefined {
    if (typeof key !== "string" || !Object.hasOwn(this.json, key)) return undefined;
    const hit = this.converted?.get(key);
    if (hit !== undefined) return hit;
    const raw = this.json[key];
    if (raw === undefined) return undefined;
    const value = toCelValue(raw);
    if (raw !== null && typeof raw === "object") {
      if (this.converted === undefined) this.converted = new Map();
      this.converted.set(key, value);
    }
    return value;
  }

  forEach(
    fn: (value: CelValue, key: string, map: ReadonlyMap<string, CelValue>) => void,
    thisArg?: unknown,
  ): void {
    for (const key of this.keys()) fn.call(thisArg, this.get(key) as CelValue, key, this);
  }

  *keys(): MapIterator<string> {
    for (const key in this.json) if (this.json[key] !== undefined) yield key;
  }

  *values(): MapIterator<CelValue> {
    for (const key of this.keys()) yield this.get(key) as CelValue;
  }

  *entries(): MapIterator<[string, CelValue]> {
    for (const key of this.keys()) yield [key, this.get(key) as CelValue];
  }

  [Symbol.iterator](): MapIterator<[string, CelValue]> {
    return this.entries();
  }
}

/** Converted objects by identity, so the policies of one request convert its objects once. */
export interface ValueCache {
  of(value: JsonValue | undefined): CelValue;
}

/** How many recent conversions a `ValueCache` keeps (a request's object, oldObject and a few more). */
const RECENT_CONVERSIONS = 8;

/**
 * A cache of the most recent conversions, keyed by the JSON objects themselves. The policies of one
 * request are evaluated back to back, so a few entries serve them all. It holds its entries strongly
 * and only until newer ones displace them: a long-lived WeakMap keyed by each request's objects (as
 * it was) kept every entry through the young-generation collections (as measured with V8's --trace-gc:
 * entries went only at full collections), so each request's objects and their conversions were
 * promoted and the old generation grew by them until a full collection: the CEL admission server
 * peaked ~100 MiB above the classic one in `npm run bench:admission` (--evaluationWorkers 0).
 */
export function createValueCache(): ValueCache {
  const keys: (object | undefined)[] = new Array(RECENT_CONVERSIONS).fill(undefined);
  const values: (CelValue | undefined)[] = new Array(RECENT_CONVERSIONS).fill(undefined);
  let next = 0;
  return {
    of(value) {
      if (value === null || typeof value !== "object") return toCelValue(value);
      for (let i = 0; i < RECENT_CONVERSIONS; i++) if (keys[i] === value) return values[i] as CelValue;
      const converted = toCelValue(value);
      keys[next] = value;
      values[next] = converted;
      next = (next + 1) % RECENT_CONVERSIONS;
      return converted;
    },
  };
}

const OPAQUE_PREFIX = "\u0000kyverno-ts:";

/**
 * An opaque value: to CEL a map of one entry (the marker key naming its type, its payload), as
 * `celMap` would build it; to the libraries, its type and payload without a lookup.
 */
class OpaqueMap extends DirectCelMap implements ReadonlyMap<string, CelValue> {
  private readonly map: CelMap;
  readonly payload: CelValue;

  constructor(
    readonly type: string,
    payload: CelInput,
  ) {
    super();
    const key = OPAQUE_PREFIX + type;
    this.map = celMap(new Map<string, CelInput>([[key, payload]]));
    this.payload = this.map.get(key) as CelValue;
  }

  get size(): number {
    return 1;
  }

  has(key: string): boolean {
    return this.map.has(key);
  }

  get(key: string): CelValue | undefined {
    return this.map.get(key);
  }

  forEach(
    fn: (value: CelValue, key: string, map: ReadonlyMap<string, CelValue>) => void,
    thisArg?: unknown,
  ): void {
    for (const [key, value] of this.entries()) fn.call(thisArg, value, key, this);
  }

  keys(): MapIterator<string> {
    return this.map.keys() as MapIterator<string>;
  }

  values(): MapIterator<CelValue> {
    return this.map.values();
  }

  entries(): MapIterator<[string, CelValue]> {
    return this.map.entries() as MapIterator<[string, CelValue]>;
  }

  [Symbol.iterator](): MapIterator<[string, CelValue]> {
    return this.entries();
  }
}

/** A library's opaque value: a map whose single key names its type and holds its payload. */
export function opaque(type: string, payload: CelInput): CelMap {
  return new OpaqueMap(type, payload).asCelMap();
}

/**
 * The payload of an opaque value of `type`, or undefined for any other value. JSON objects (request
 * data) are never opaque values, whatever their keys; other maps holding the marker key are.
 */
export function opaquePayload(value: CelValue | undefined, type: string): CelValue | undefined {
  if (value instanceof OpaqueMap) return value.type === type ? value.payload : undefined;
  if (!isCelMap(value) || value instanceof JsonMap) return undefined;
  return value.get(OPAQUE_PREFIX + type);
}

/** The type name of an opaque value, or undefined. */
function opaqueType(value: CelValue | undefined): string | undefined {
  if (value instanceof OpaqueMap) return value.type;
  if (!isCelMap(value) || value instanceof JsonMap || value.size !== 1) return undefined;
  const [key] = value.keys();
  return typeof key === "string" && key.startsWith(OPAQUE_PREFIX)
    ? key.slice(OPAQUE_PREFIX.length)
    : undefined;
}

/** Turns a value into the JSON output of a mutation, a message or a generated object. */
export function toJson(value: CelValue | undefined): JsonValue {
  if (value === undefined || value === null) return null;
  switch (typeof value) {
    case "bigint":
      return Number(value);
    case "number":
    case "string":
    case "boolean":
      return value;
  }
  if (value instanceof Uint8Array) return Buffer.from(value).toString("base64");
  if (isCelUint(value)) return Number(value.value);
  if (isCelList(value)) return listToJson(value);
  if (isCelMap(value)) {
    const type = opaqueType(value);
    if (type !== undefined) return opaqueToJson(type, value);
    const out: { [key: string]: JsonValue } = {};
    for (const [k, v] of value.entries()) {
      if (opaqueType(v) === "optional" && opaquePayload(v, "optional") === undefined) continue;
      out[String(isCelUint(k) ? k.value : k)] = toJson(v);
    }
    return out;
  }
  return messageToJson(value);
}

function listToJson(list: CelList): JsonValue[] {
  const out: JsonValue[] = [];
  for (const v of list) out.push(toJson(v));
  return out;
}

function opaqueToJson(type: string, value: CelMap): JsonValue {
  const payload = opaquePayload(value, type);
  if (type === "optional") {
    const inner = isCelList(payload) ? payload.get(0) : undefined;
    return inner === undefined ? null : toJson(inner);
  }
  return payload === undefined ? null : toJson(payload);
}

/** Timestamps and durations (protobuf messages in `@bufbuild/cel`) as Kubernetes prints them. */
function messageToJson(value: CelValue): JsonValue {
  const message = (value as { message?: { $typeName?: string; seconds?: bigint; nanos?: number } }).message;
  if (message?.$typeName === "google.protobuf.Timestamp") {
    const ms = Number(message.seconds ?? 0n) * 1000 + Math.floor((message.nanos ?? 0) / 1e6);
    return new Date(ms).toISOString().replace(".000Z", "Z");
  }
  if (message?.$typeName === "google.protobuf.Duration") {
    const seconds = Number(message.seconds ?? 0n) + (message.nanos ?? 0) / 1e9;
    return `${seconds}s`;
  }
  return String(value);
}

/** A string for messages: strings as they are, other values as JSON. */
export function celToString(value: CelValue): string {
  if (typeof value === "string") return value;
  return JSON.stringify(toJson(value));
}
