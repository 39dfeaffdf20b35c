/**
 * Kubernetes' typed CEL libraries: `quantity`, `url`, `ip` / `cidr` and `semver`. Their values are
 * opaque (see `../values.ts`) and hold the string they were made from.
 */

import { isIP } from "node:net";
import { type CelFunc, CelScalar, type CelValue, celFunc, celMethod } from "@bufbuild/cel";
import {
  addQuantities,
  compareQuantities,
  formatQuantity,
  parseQuantity,
  type Quantity,
  quantityToBigInt,
  quantityToNumber,
  subtractQuantities,
} from "../../quantity/quantity.js";
import { compareSemver, tryParseSemver, type Version } from "../../semver/semver.js";
import { opaque, opaquePayload } from "../values.js";

const { DYN, STRING, INT, BOOL, DOUBLE } = CelScalar;

function payload(value: CelValue, type: string): string {
  const p = opaquePayload(value, type);
  if (typeof p !== "string") throw new Error(`no such overload: expected a ${type}`);
  return p;
}

function quantityOf(value: CelValue): Quantity {
  const q = parseQuantity(payload(value, "quantity"));
  if (q === undefined) throw new Error("invalid quantity");
  return q;
}

function quantityArg(value: CelValue): Quantity {
  if (typeof value === "bigint") return parseQuantity(String(value)) as Quantity;
  return quantityOf(value);
}

function semverOf(value: CelValue): Version {
  const v = tryParseSemver(payload(value, "semver"));
  if (v === undefined) throw new Error("invalid semver");
  return v;
}

function parseUrl(s: string): URL | undefined {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(s) && !s.startsWith("/")) return undefined;
  try {
    return new URL(s, s.startsWith("/") ? "relative:///" : undefined);
  } catch {
    return undefined;
  }
}

function urlOf(value: CelValue): URL {
  const u = parseUrl(payload(value, "url"));
  if (u === undefined) throw new Error("invalid url");
  return u;
}

/** IPv4/IPv6 address bytes, or undefined. */
function ipBytes(s: string): number[] | undefined {
  const family = isIP(s);
  if (family === 4) return s.split(".").map(Number);
  if (family !== 6 || s.includes("%")) return undefined;
  const [head = "", tail] = s.split("::");
  const parse = (part: string): number[] =>
    part === ""
      ? []
      : part.split(":").flatMap((g) => {
          if (g.includes(".")) return g.split(".").map(Number);
          const n = Number.parseInt(g, 16);
          return [n >> 8, n & 255];
        });
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...new Array(16 - left.length - right.length).fill(0), ...right];
}

function cidrOf(s: string): { bytes: number[]; prefix: number } | undefined {
  const [addr = "", prefix, extra] = s.split("/");
  if (prefix === undefined || extra !== undefined || !/^\d+$/.test(prefix)) return undefined;
  const bytes = ipBytes(addr);
  const n = Number(prefix);
  if (bytes === undefined || n > bytes.length * 8) return undefined;
  return { bytes, prefix: n };
}

function inPrefix(bytes: readonly number[], net: { bytes: number[]; prefix: number }): boolean {
  if (bytes.length !== net.bytes.length) return false;
  for (let bit = 0; bit < net.prefix; bit++) {
    const i = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if (((bytes[i] ?? 0) & mask) !== ((net.bytes[i] ?? 0) & mask)) return false;
  }
  return true;
}

function ipOf(value: CelValue): number[] {
  const b = ipBytes(payload(value, "ip"));
  if (b === undefined) throw new Error("invalid ip");
  return b;
}

function cidrValue(value: CelValue): { bytes: number[]; prefix: number } {
  const c = cidrOf(payload(value, "cidr"));
  if (c === undefined) throw new Error("invalid cidr");
  return c;
}

function ipString(bytes: readonly number[]): string {
  if (bytes.length === 4) return bytes.join(".");
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return groups
    .join(":")
    .replace(/(^|:)0(:0)+(:|$)/, "::")
    .replace(/:{3,}/, "::");
}

/** The `quantity`, `url`, `ip`, `cidr` and `semver` functions. */
export function kubernetesFunctions(): CelFunc[] {
  return [
    celFunc("quantity", [STRING], DYN, (s) => {
      if (parseQuantity(s) === undefined) throw new Error(`quantities must match the regular expression`);
      return opaque("quantity", s);
    }),
    celFunc("isQuantity", [STRING], BOOL, (s) => parseQuantity(s) !== undefined),
    celMethod("isGreaterThan", DYN, [DYN], BOOL, function (o) {
      if (opaquePayload(this, "semver") !== undefined) return compareSemver(semverOf(this), semverOf(o)) > 0;
      return compareQuantities(quantityOf(this), quantityArg(o)) > 0;
    }),
    celMethod("isLessThan", DYN, [DYN], BOOL, function (o) {
      if (opaquePayload(this, "semver") !== undefined) return compareSemver(semverOf(this), semverOf(o)) < 0;
      return compareQuantities(quantityOf(this), quantityArg(o)) < 0;
    }),
    celMethod("compareTo", DYN, [DYN], INT, function (o) {
      if (opaquePayload(this, "semver") !== undefined)
        return BigInt(Math.sign(compareSemver(semverOf(this), semverOf(o))));
      return BigInt(compareQuantities(quantityOf(this), quantityArg(o)));
    }),
    celMethod("sign", DYN, [], INT, function () {
      const q = quantityOf(this);
      return q.mantissa > 0n ? 1n : q.mantissa < 0n ? -1n : 0n;
    }),
    celMethod("add", DYN, [DYN], DYN, function (o) {
      return opaque("quantity", formatQuantity(addQuantities(quantityOf(this), quantityArg(o))));
    }),
    celMethod("sub", DYN, [DYN], DYN, function (o) {
      return opaque("quantity", formatQuantity(subtractQuantities(quantityOf(this), quantityArg(o))));
    }),
    celMethod("isInteger", DYN, [], BOOL, function () {
      return quantityToBigInt(quantityOf(this)) !== undefined;
    }),
    celMethod("asInteger", DYN, [], INT, function () {
      const v = quantityToBigInt(quantityOf(this));
      if (v === undefined) throw new Error("cannot convert value to integer");
      return v;
    }),
    celMethod("asApproximateFloat", DYN, [], DOUBLE, function () {
      return quantityToNumber(quantityOf(this));
    }),
    celFunc("semver", [STRING], DYN, (s) => {
      if (tryParseSemver(s) === undefined) throw new Error("invalid semver");
      return opaque("semver", s);
    }),
    celFunc("isSemver", [STRING], BOOL, (s) => tryParseSemver(s) !== undefined),
    celMethod("major", DYN, [], INT, function () {
      return semverOf(this).major;
    }),
    celMethod("minor", DYN, [], INT, function () {
      return semverOf(this).minor;
    }),
    celMethod("patch", DYN, [], INT, function () {
      return semverOf(this).patch;
    }),
    celFunc("url", [STRING], DYN, (s) => {
      if (parseUrl(s) === undefined) throw new Error(`URL parse error during conversion from string: ${s}`);
      return opaque("url", s);
    }),
    celFunc("isURL", [STRING], BOOL, (s) => parseUrl(s) !== undefined),
    celMethod("getScheme", DYN, [], STRING, function () {
      const u = urlOf(this);
      return u.protocol === "relative:" ? "" : u.protocol.slice(0, -1);
    }),
    celMethod("getHost", DYN, [], STRING, function () {
      return urlOf(this).host;
    }),
    celMethod("getHostname", DYN, [], STRING, function () {
      return urlOf(this).hostname.replace(/^\[|\]$/g, "");
    }),
    celMethod("getPort", DYN, [], STRING, function () {
      return urlOf(this).port;
    }),
    celMethod("getEscapedPath", DYN, [], STRING, function () {
      return urlOf(this).pathname;
    }),
    celMethod("getQuery", DYN, [], DYN, function () {
      const out = new Map<string, CelValue>();
      for (const [k, v] of urlOf(this).searchParams) {
        const list = (out.get(k) as string[] | undefined) ?? [];
        list.push(v);
        out.set(k, list as unknown as CelValue);
      }
      return out as unknown as CelValue;
    }),
    celFunc("ip", [STRING], DYN, (s) => {
      if (ipBytes(s) === undefined)
        throw new Error(`IP Address "${s}" parse error during conversion from string`);
      return opaque("ip", s);
    }),
    celFunc("isIP", [STRING], BOOL, (s) => ipBytes(s) !== undefined),
    celFunc("ip.isCanonical", [STRING], BOOL, (s) => {
      const b = ipBytes(s);
      return b !== undefined && ipString(b) === s;
    }),
    celMethod("family", DYN, [], INT, function () {
      return ipOf(this).length === 4 ? 4n : 6n;
    }),
    celMethod("isUnspecified", DYN, [], BOOL, function () {
      return ipOf(this).every((b) => b === 0);
    }),
    celMethod("isLoopback", DYN, [], BOOL, function () {
      const b = ipOf(this);
      return b.length === 4 ? b[0] === 127 : b.slice(0, 15).every((x) => x === 0) && b[15] === 1;
    }),
    celMethod("isLinkLocalMulticast", DYN, [], BOOL, function () {
      const b = ipOf(this);
      return b.length === 4
        ? b[0] === 224 && b[1] === 0 && b[2] === 0
        : b[0] === 0xff && ((b[1] ?? 0) & 0x0f) === 2;
    }),
    celMethod("isLinkLocalUnicast", DYN, [], BOOL, function () {
      const b = ipOf(this);
      return b.length === 4 ? b[0] === 169 && b[1] === 254 : b[0] === 0xfe && ((b[1] ?? 0) & 0xc0) === 0x80;
    }),
    celMethod("isGlobalUnicast", DYN, [], BOOL, function () {
      const b = ipOf(this);
      if (b.every((x) => x === 0)) return false;
      if (b.length === 4)
        return !(b[0] === 127 || b[0] === 255 || (b[0] ?? 0) >= 224 || (b[0] === 169 && b[1] === 254));
      return !(
        b[0] === 0xff ||
        (b[0] === 0xfe && ((b[1] ?? 0) & 0xc0) === 0x80) ||
        b.slice(0, 15).every((x) => x === 0)
      );
    }),
    celFunc("cidr", [STRING], DYN, (s) => {
      if (cidrOf(s) === undefined)
        throw new Error(`network address parse error during conversion from string`);
      return opaque("cidr", s);
    }),
    celFunc("isCIDR", [STRING], BOOL, (s) => cidrOf(s) !== undefined),
    celMethod("containsIP", DYN, [DYN], BOOL, function (o) {
      const ip = typeof o === "string" ? ipBytes(o) : ipOf(o);
      if (ip === undefined) throw new Error("invalid ip");
      return inPrefix(ip, cidrValue(this));
    }),
    celMethod("containsCIDR", DYN, [DYN], BOOL, function (o) {
      const other = typeof o === "string" ? cidrOf(o) : cidrValue(o);
      if (other === undefined) throw new Error("invalid cidr");
      const net = cidrValue(this);
      return other.prefix >= net.prefix && inPrefix(other.bytes, net);
    }),
    celMethod("prefixLength", DYN, [], INT, function () {
      return BigInt(cidrValue(this).prefix);
    }),
    celMethod("masked", DYN, [], DYN, function () {
      const net = cidrValue(this);
      const bytes = net.bytes.map((b, i) => {
        const bits = Math.max(0, Math.min(8, net.prefix - i * 8));
        return b & (0xff << (8 - bits)) & 0xff;
      });
      return opaque("cidr", `${ipString(bytes)}/${net.prefix}`);
    }),
    celMethod("ip", DYN, [], DYN, function () {
      return opaque("ip", ipString(cidrValue(this).bytes));
    }),
  ];
}
