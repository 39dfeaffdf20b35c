/**
 * Kubernetes' string, regex and list libraries on top of cel-go's `strings` extension
 * (`@bufbuild/cel/ext`): `matches`, `find` and `findAll` with RE2 semantics (re2js, patterns
 * compiled once per environment), `join` / `split` over dyn lists, list helpers (`isSorted`, `sum`,
 * `min`, `max`, `indexOf`, `lastIndexOf`, `slice`, `flatten`, `distinct`, `reverse`, `sort`),
 * `sets.*` and `base64.*`.
 */
import {
  type CelFunc,
  type CelList,
  CelScalar,
  type CelValue,
  celFunc,
  celList,
  celMethod,
  isCelList,
  isCelUint,
} from "@bufbuild/cel";
import { strings } from "@bufbuild/cel/ext";
import { RE2JS } from "re2js";
import { celEquals, compareCel } from "./compare.js";

const { DYN, STRING, INT, BOOL, BYTES, DOUBLE } = CelScalar;

/** A cache of compiled RE2 patterns, one per environment. */
export interface RegexCache {
  get(pattern: string): RE2JS;
}

/** Creates the cache `matches`, `find` and `findAll` compile their patterns into. */
export function createRegexCache(limit = 512): RegexCache {
  const cache = new Map<string, RE2JS>();
  return {
    get(pattern) {
      let re = cache.get(pattern);
      if (re === undefined) {
        re = RE2JS.compile(pattern);
        if (cache.size >= limit) cache.clear();
        cache.set(pattern, re);
      }
      return re;
    },
  };
}

function listOf(value: CelValue): CelList {
  if (!isCelList(value)) throw new Error("expected a list");
  return value;
}

function items(list: CelList): CelValue[] {
  return [...list];
}

function numberOf(v: CelValue): number {
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "number") return v;
  if (isCelUint(v)) return Number(v.value);
  throw new Error("expected a number");
}

function sum(list: CelList): CelValue {
  const values = items(list);
  if (values.every((v) => typeof v === "bigint"))
    return values.reduce<bigint>((a, b) => a + (b as bigint), 0n);
  return values.reduce<number>((a, b) => a + numberOf(b), 0);
}

function extreme(list: CelList, sign: 1 | -1): CelValue {
  const values = items(list);
  if (values.length === 0) throw new Error("min/max of an empty list");
  let best = values[0] as CelValue;
  for (const v of values.slice(1)) if (compareCel(v, best) * sign > 0) best = v;
  return best;
}

function indexOf(list: CelList, value: CelValue, last: boolean): bigint {
  const values = items(list);
  const order = last ? [...values.keys()].reverse() : [...values.keys()];
  for (const i of order) if (celEquals(values[i] as CelValue, value)) return BigInt(i);
  return -1n;
}

function flatten(list: CelList, depth: number): CelValue[] {
  const out: CelValue[] = [];
  for (const v of list) {
    if (isCelList(v) && depth > 0) out.push(...flatten(v, depth - 1));
    else out.push(v);
  }
  return out;
}

function distinct(list: CelList): CelValue[] {
  const out: CelValue[] = [];
  for (const v of list) if (!out.some((o) => celEquals(o, v))) out.push(v);
  return out;
}

function joinList(list: CelList, separator: string): string {
  return items(list)
    .map((v) => {
      if (typeof v !== "string") throw new Error("join needs a list of strings");
      return v;
    })
    .join(separator);
}

function findAll(re: RE2JS, s: string, limit: number): string[] {
  const out: string[] = [];
  const m = re.matcher(s);
  while ((limit < 0 || out.length < limit) && m.find()) out.push(m.group() ?? "");
  return out;
}

/** The string, regex, list, set and base64 functions of Kubernetes' CEL environment. */
export function stringFunctions(regex: RegexCache): CelFunc[] {
  return [
    ...strings,
    celMethod("matches", STRING, [STRING], BOOL, function (pattern) {
      return regex.get(pattern).matcher(this).find();
    }),
    celFunc("matches", [STRING, STRING], BOOL, (s, pattern) => regex.get(pattern).matcher(s).find()),
    celMethod("find", STRING, [STRING], STRING, function (pattern) {
      const m = regex.get(pattern).matcher(this);
      return m.find() ? (m.group() ?? "") : "";
    }),
    celMethod("findAll", STRING, [STRING], DYN, function (pattern) {
      return celList(findAll(regex.get(pattern), this, -1));
    }),
    celMethod("findAll", STRING, [STRING, INT], DYN, function (pattern, n) {
      return celList(findAll(regex.get(pattern), this, Number(n)));
    }),
    celMethod("split", STRING, [STRING], DYN, function (sep) {
      return celList(this.split(sep));
    }),
    celMethod("split", STRING, [STRING, INT], DYN, function (sep, n) {
      const limit = Number(n);
      if (limit === 0) return celList([]);
      const parts = this.split(sep);
      if (limit < 0 || parts.length <= limit) return celList(parts);
      return celList([...parts.slice(0, limit - 1), parts.slice(limit - 1).join(sep)]);
    }),
    celMethod("reverse", STRING, [], STRING, function () {
      return [...this].reverse().join("");
    }),
    celMethod("join", DYN, [], STRING, function () {
      return joinList(listOf(this), "");
    }),
    celMethod("join", DYN, [STRING], STRING, function (sep) {
      return joinList(listOf(this), sep);
    }),
    celMethod("isSorted", DYN, [], BOOL, function () {
      const values = items(listOf(this));
      return values.every((v, i) => i === 0 || compareCel(values[i - 1] as CelValue, v) <= 0);
    }),
    celMethod("sum", DYN, [], DYN, function () {
      return sum(listOf(this));
    }),
    celMethod("min", DYN, [], DYN, function () {
      return extreme(listOf(this), -1);
    }),
    celMethod("max", DYN, [], DYN, function () {
      return extreme(listOf(this), 1);
    }),
    celMethod("indexOf", DYN, [DYN], INT, function (v) {
      return indexOf(listOf(this), v, false);
    }),
    celMethod("lastIndexOf", DYN, [DYN], INT, function (v) {
      return indexOf(listOf(this), v, true);
    }),
    celMethod("slice", DYN, [INT, INT], DYN, function (from, to) {
      const values = items(listOf(this));
      if (from < 0n || to > BigInt(values.length) || from > to) throw new Error("slice out of range");
      return celList(values.slice(Number(from), Number(to)));
    }),
    celMethod("flatten", DYN, [], DYN, function () {
      return celList(flatten(listOf(this), 1));
    }),
    celMethod("flatten", DYN, [INT], DYN, function (depth) {
      return celList(flatten(listOf(this), Number(depth)));
    }),
    celMethod("distinct", DYN, [], DYN, function () {
      return celList(distinct(listOf(this)));
    }),
    celMethod("reverse", DYN, [], DYN, function () {
      return celList(items(listOf(this)).reverse());
    }),
    celMethod("sort", DYN, [], DYN, function () {
      return celList(items(listOf(this)).sort(compareCel));
    }),
    celFunc("lists.range", [INT], DYN, (n) =>
      celList(Array.from({ length: Number(n) }, (_, i) => BigInt(i))),
    ),
    celFunc("sets.contains", [DYN, DYN], BOOL, (a, b) =>
      items(listOf(b)).every((x) => items(listOf(a)).some((y) => celEquals(x, y))),
    ),
    celFunc("sets.equivalent", [DYN, DYN], BOOL, (a, b) => {
      const [x, y] = [items(listOf(a)), items(listOf(b))];
      return x.every((v) => y.some((w) => celEquals(v, w))) && y.every((v) => x.some((w) => celEquals(v, w)));
    }),
    celFunc("sets.intersects", [DYN, DYN], BOOL, (a, b) =>
      items(listOf(a)).some((x) => items(listOf(b)).some((y) => celEquals(x, y))),
    ),
    ...mathFunctions(),
    celFunc("base64.encode", [BYTES], STRING, (b) => Buffer.from(b).toString("base64")),
    celFunc("base64.decode", [STRING], BYTES, (s) => new Uint8Array(Buffer.from(s, "base64"))),
  ];
}

/** The numbers of `math.greatest` / `math.least` arguments: the values, or the one list given. */
function numbers(args: CelValue[]): CelValue[] {
  const [first] = args;
  const values = args.length === 1 && first !== undefined && isCelList(first) ? items(first) : args;
  if (values.length === 0) throw new Error("math.greatest/least need at least one value");
  for (const v of values) numberOf(v);
  return values;
}

function rounded(fn: (x: number) => number): (x: CelValue) => CelValue {
  return (x) => (typeof x === "number" ? fn(x) : x);
}

/** cel-go's `math` extension, as Kubernetes enables it. */
function mathFunctions(): CelFunc[] {
  const variadic = (name: string, sign: 1 | -1) =>
    [1, 2, 3, 4, 5, 6].map((n) =>
      celFunc(
        name,
        Array.from({ length: n }, () => DYN),
        DYN,
        (...args: CelValue[]) =>
          numbers(args).reduce((best, v) => (compareCel(v, best) * sign > 0 ? v : best)),
      ),
    );
  return [
    ...variadic("math.greatest", 1),
    ...variadic("math.least", -1),
    celFunc("math.ceil", [DYN], DYN, rounded(Math.ceil)),
    celFunc("math.floor", [DYN], DYN, rounded(Math.floor)),
    celFunc(
      "math.round",
      [DYN],
      DYN,
      rounded((x) => (x < 0 ? -Math.round(-x) : Math.round(x))),
    ),
    celFunc("math.trunc", [DYN], DYN, rounded(Math.trunc)),
    celFunc("math.abs", [DYN], DYN, (x) =>
      typeof x === "bigint" ? (x < 0n ? -x : x) : Math.abs(numberOf(x)),
    ),
    celFunc("math.sign", [DYN], DYN, (x) =>
      typeof x === "bigint" ? (x > 0n ? 1n : x < 0n ? -1n : 0n) : Math.sign(numberOf(x)),
    ),
    celFunc("math.isNaN", [DOUBLE], BOOL, (x) => Number.isNaN(x)),
    celFunc(
      "math.isInf",
      [DOUBLE],
      BOOL,
      (x) => x === Number.POSITIVE_INFINITY || x === Number.NEGATIVE_INFINITY,
    ),
    celFunc("math.isFinite", [DOUBLE], BOOL, (x) => Number.isFinite(x)),
  ];
}
