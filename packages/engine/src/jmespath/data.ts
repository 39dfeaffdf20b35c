/**
 * Data functions: parse_json, parse_yaml, lookup, items, object_from_lists, hashes, is_external_url.
 */
import { createHash } from "node:crypto";
import { isIP } from "node:net";
import type { JsonValue } from "@kyverno-ts/api";
import { parseAllDocuments } from "yaml";
import { arg, ensureArrayLength, type FunctionDef, isJsonObject } from "./context.js";
import { scalarToString } from "./convert.js";
import { argumentTypeError, functionError, messageOf } from "./errors.js";

/** Converts a parsed YAML value to JSON: map keys become strings, dates become RFC 3339 strings. */
function toJson(value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "bigint") return Number(value);
  if (value instanceof Date) return value.toISOString().replace(".000Z", "Z");
  if (Array.isArray(value)) return value.map(toJson);
  if (value instanceof Map) {
    const out: { [key: string]: JsonValue } = {};
    for (const [k, v] of value) out[String(k)] = toJson(v);
    return out;
  }
  if (value instanceof Set) return [...value].map(toJson);
  if (typeof value === "object") {
    const out: { [key: string]: JsonValue } = {};
    for (const [k, v] of Object.entries(value)) out[k] = toJson(v);
    return out;
  }
  return null;
}

/** YAML 1.1 (as sigs.k8s.io/yaml), first document only, alias expansion bounded. */
function parseYaml(text: string): JsonValue {
  const docs = parseAllDocuments(text, { version: "1.1", merge: true, uniqueKeys: false });
  if (!Array.isArray(docs)) throw functionError("parse_yaml", "invalid YAML");
  const first = docs[0];
  if (first === undefined) return null;
  const error = first.errors[0];
  if (error !== undefined) throw functionError("parse_yaml", error.message);
  try {
    return toJson(first.toJS({ maxAliasCount: 100, mapAsMap: true }));
  } catch (thrown) {
    throw functionError("parse_yaml", messageOf(thrown));
  }
}

function lookup(target: JsonValue | undefined, key: JsonValue | undefined): JsonValue {
  if (isJsonObject(target)) {
    if (typeof key !== "string") throw argumentTypeError("lookup", 2, "String");
    return Object.hasOwn(target, key) ? (target[key] ?? null) : null;
  }
  if (Array.isArray(target)) {
    if (typeof key !== "number") throw argumentTypeError("lookup", 2, "Number");
    if (!Number.isInteger(key)) throw functionError("lookup", `expected an integer number but got: ${key}`);
    return key < 0 || key >= target.length ? null : (target[key] ?? null);
  }
  throw argumentTypeError("lookup", 1, "Object or Array");
}

function items(target: JsonValue | undefined, keyName: string, valueName: string): JsonValue {
  if (isJsonObject(target)) {
    return Object.keys(target)
      .sort()
      .map((key) => ({ [keyName]: key, [valueName]: target[key] ?? null }));
  }
  if (Array.isArray(target)) return target.map((value, index) => ({ [keyName]: index, [valueName]: value }));
  throw argumentTypeError("items", 1, "Object or Array");
}

function objectFromLists(keys: JsonValue | undefined, values: JsonValue | undefined): JsonValue {
  if (!Array.isArray(keys)) throw argumentTypeError("object_from_lists", 1, "Array");
  if (!Array.isArray(values)) throw argumentTypeError("object_from_lists", 2, "Array");
  const out: { [key: string]: JsonValue } = {};
  keys.forEach((k, i) => {
    const key = scalarToString(k);
    if (key === undefined) throw argumentTypeError("object_from_lists", 1, "StringArray");
    out[key] = values[i] ?? null;
  });
  return out;
}

function ipv4Internal(ip: string): boolean {
  const [a = 0, b = 0] = ip.split(".").map(Number);
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    a >= 224
  );
}

function ipv6Internal(ip: string): boolean {
  const lower = ip.toLowerCase();
  if (lower === "::" || lower === "::1") return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped?.[1] !== undefined) return ipv4Internal(mapped[1]);
  return /^f[cd]/.test(lower) || /^fe[89ab]/.test(lower) || lower.startsWith("ff");
}

const INTERNAL_SUFFIXES = [
  ".local",
  ".localhost",
  ".internal",
  ".svc",
  ".cluster.local",
  ".svc.cluster.local",
];

/**
 * Whether a URL points outside the cluster. Upstream resolves the host name with DNS; this engine
 * does no I/O, so IP literals are classified exactly (loopback, private, link-local, CGNAT,
 * multicast, unspecified) and names by shape: `localhost`, single-label names and cluster/local
 * suffixes are internal, any other dotted name is external. Unparseable input is not external.
 */
export function isExternalUrl(input: string): boolean {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return false;
  }
  const host = url.hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
  if (host === "") return false;
  const family = isIP(host);
  if (family === 4) return !ipv4Internal(host);
  if (family === 6) return !ipv6Internal(host);
  if (host === "localhost" || !host.includes(".")) return false;
  return !INTERNAL_SUFFIXES.some((suffix) => host.endsWith(suffix));
}

function hash(algorithm: string): (a: readonly JsonValue[]) => JsonValue {
  return (a) =>
    createHash(algorithm)
      .update(typeof a[0] === "string" ? a[0] : "", "utf8")
      .digest("hex");
}

const text = (a: readonly JsonValue[]): string => (typeof a[0] === "string" ? a[0] : "");

/** The data functions. */
export const dataFunctions: readonly FunctionDef[] = [
  {
    name: "parse_json",
    args: [arg("string")],
    returns: "any",
    description: "decodes a JSON document held in a string",
    call: (a) => {
      try {
        return JSON.parse(text(a)) as JsonValue;
      } catch (thrown) {
        throw functionError("parse_json", messageOf(thrown));
      }
    },
  },
  {
    name: "parse_yaml",
    args: [arg("string")],
    returns: "any",
    description: "decodes a YAML document held in a string",
    call: (a) => parseYaml(text(a)),
  },
  {
    name: "lookup",
    args: [arg("object", "array"), arg("string", "number")],
    returns: "any",
    description: "value at a key of an object or an index of an array; null when absent",
    call: (a) => lookup(a[0], a[1]),
  },
  {
    name: "items",
    args: [arg("object", "array"), arg("string"), arg("string")],
    returns: "array[object]",
    description: "turns an object (sorted by key) or array into [{<key name>: k, <value name>: v}]",
    call: (a, ctx) => {
      const target = a[0];
      ensureArrayLength(ctx, "items", isJsonObject(target) ? Object.keys(target).length : 0);
      return items(target, typeof a[1] === "string" ? a[1] : "", typeof a[2] === "string" ? a[2] : "");
    },
  },
  {
    name: "object_from_lists",
    args: [arg("array"), arg("array")],
    returns: "object",
    description: "builds an object from an array of keys and an array of values (missing values are null)",
    call: (a) => objectFromLists(a[0], a[1]),
  },
  {
    name: "is_external_url",
    args: [arg("string")],
    returns: "boolean",
    description: "true when the URL's host is outside the cluster and not a private or loopback address",
    call: (a) => isExternalUrl(text(a)),
  },
  {
    name: "sha256",
    args: [arg("string")],
    returns: "string",
    description: "hex SHA-256 of the string",
    call: hash("sha256"),
  },
  {
    name: "sha1",
    args: [arg("string")],
    returns: "string",
    description: "hex SHA-1 of the string",
    call: hash("sha1"),
  },
  {
    name: "md5",
    args: [arg("string")],
    returns: "string",
    description: "hex MD5 of the string",
    call: hash("md5"),
  },
];
