/**
 * CEL's optional library (`optional.of`, `optional.none`, `hasValue`, `value`, `orValue`, `or`) and
 * the calls the optional syntax is rewritten into (see `../syntax.ts`). An optional is an opaque
 * value holding a list of zero or one element.
 */
import {
  type CelFunc,
  CelScalar,
  type CelValue,
  celFunc,
  celList,
  celMap,
  celMethod,
  isCelList,
  isCelMap,
  isCelUint,
} from "@bufbuild/cel";
import { opaque, opaquePayload } from "../values.js";

const DYN = CelScalar.DYN;
const OPTIONAL = "optional";
const ENTRY = "optionalEntry";

/** An optional holding `value`, or none. */
function optionalOf(value: CelValue | undefined): CelValue {
  return opaque(OPTIONAL, celList(value === undefined ? [] : [value]));
}

/** The value an optional holds (undefined for none); a non-optional value is its own value. */
export function optionalInner(value: CelValue): CelValue | undefined {
  return inner(value);
}

function inner(value: CelValue): CelValue | undefined {
  const list = opaquePayload(value, OPTIONAL);
  if (list === undefined) return value;
  return isCelList(list) ? list.get(0) : undefined;
}

/** Whether a value is an optional (`optional.of(x)`, `optional.none()`, `x.?name`). */
export function isOptional(value: CelValue): boolean {
  return opaquePayload(value, OPTIONAL) !== undefined;
}

/**
 * `x.?name` on a map (or an optional of one): the field if present. Also `opt[key]` and `opt.name`
 * on an optional (what follows `.?` stays optional, as cel-go qualifies optionals).
 */
export function select(target: CelValue, key: CelValue): CelValue {
  const base = inner(target);
  if (base === undefined || base === null) return optionalOf(undefined);
  if (isCelMap(base)) {
    const k = typeof key === "number" || isCelUint(key) ? key : key;
    if (typeof k === "string" || typeof k === "bigint" || typeof k === "boolean" || typeof k === "number")
      return optionalOf(base.get(k));
    return optionalOf(undefined);
  }
  if (isCelList(base)) {
    const i = typeof key === "bigint" ? Number(key) : typeof key === "number" ? key : Number.NaN;
    if (!Number.isInteger(i) || i < 0 || i >= base.size) return optionalOf(undefined);
    return optionalOf(base.get(i));
  }
  throw new Error(`no such field on ${typeof base === "string" ? "string" : "value"} for optional selection`);
}

/** Follows `keys` from `base` as a chain of `.?key` would; undefined where the chain is none. */
function walk(base: CelValue, keys: CelValue): CelValue | undefined {
  let current: CelValue | undefined = inner(base);
  if (!isCelList(keys)) throw new Error("optional path needs a list of keys");
  for (const key of keys) {
    if (current === undefined || current === null) return undefined;
    if (isCelMap(current)) {
      if (typeof key !== "string") return undefined;
      current = current.get(key);
    } else throw new Error("no such field for optional selection");
  }
  return current;
}

/** Whether a value is CEL's zero value of its type. */
function isZero(value: CelValue): boolean {
  if (value === null || value === false || value === "" || value === 0n || value === 0) return true;
  if (isCelUint(value)) return value.value === 0n;
  if (isCelList(value) || isCelMap(value)) return value.size === 0;
  if (value instanceof Uint8Array) return value.length === 0;
  return false;
}

/** The functions of the optional library. */
export const optionalFunctions: readonly CelFunc[] = [
  celFunc("optional.of", [DYN], DYN, (v) => optionalOf(v)),
  celFunc("optional.none", [], DYN, () => optionalOf(undefined)),
  celFunc("optional.ofNonZeroValue", [DYN], DYN, (v) => optionalOf(isZero(v) ? undefined : v)),
  celMethod("hasValue", DYN, [], CelScalar.BOOL, function () {
    return inner(this) !== undefined;
  }),
  celMethod("value", DYN, [], DYN, function () {
    const v = inner(this);
    if (v === undefined) throw new Error("optional.none() dereference");
    return v;
  }),
  // Upstream accepts `orValue` on any value the checker types as dyn: a plain value is its own value.
  celMethod("orValue", DYN, [DYN], DYN, function (fallback) {
    return inner(this) ?? fallback;
  }),
  celMethod("or", DYN, [DYN], DYN, function (other) {
    return inner(this) !== undefined ? this : other;
  }),
  celMethod("optSelect__", DYN, [DYN], DYN, function (key) {
    return select(this, key);
  }),
  celMethod("optIndex__", DYN, [DYN], DYN, function (key) {
    return select(this, key);
  }),
  celFunc("optPath__", [DYN, DYN, DYN], DYN, (base, keys, fallback) => {
    const found = walk(base, keys);
    return found === undefined ? fallback : found;
  }),
  celFunc("optHas__", [DYN, DYN], CelScalar.BOOL, (base, keys) => walk(base, keys) !== undefined),
  celFunc("optEntry__", [DYN], DYN, (v) => opaque(ENTRY, celList([v]))),
  celFunc("optList__", [DYN], DYN, (list) => {
    if (!isCelList(list)) throw new Error("optional list entries need a list");
    const out: CelValue[] = [];
    for (const item of list) {
      const entry = opaquePayload(item, ENTRY);
      if (!isCelList(entry)) {
        out.push(item);
        continue;
      }
      const v = entry.get(0);
      const held = v === undefined ? undefined : inner(v);
      if (held !== undefined) out.push(held);
    }
    return celList(out);
  }),
  celFunc("optMap__", [DYN], DYN, (map) => {
    if (!isCelMap(map)) throw new Error("optional map entries need a map");
    const out = new Map<string | bigint | boolean, CelValue>();
    for (const [k, item] of map.entries()) {
      const key = isCelUint(k) ? k.value : k;
      const entry = opaquePayload(item, ENTRY);
      if (!isCelList(entry)) {
        out.set(key, item);
        continue;
      }
      const v = entry.get(0);
      const held = v === undefined ? undefined : inner(v);
      if (held !== undefined) out.set(key, held);
    }
    return celMap(out);
  }),
];
