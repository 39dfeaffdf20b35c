/**
 * Kyverno's string functions, with Go `strings` package semantics (code points where Go uses runes).
 */
import type { JsonValue } from "@kyverno-ts/api";
import { matchWildcard } from "../wildcard/wildcard.js";
import {
  arg,
  ensureArrayLength,
  ensureStringLength,
  type FunctionContext,
  type FunctionDef,
  isJsonObject,
} from "./context.js";
import { codePoints, scalarToString } from "./convert.js";
import { argumentTypeError, functionError } from "./errors.js";

function str(args: readonly JsonValue[], index: number): string {
  const value = args[index];
  return typeof value === "string" ? value : "";
}

function num(args: readonly JsonValue[], index: number): number {
  const value = args[index];
  return typeof value === "number" ? value : 0;
}

/** Go's strings.Replace: at most `n` replacements (all when n < 0); empty `old` matches between runes. */
export function goReplace(
  ctx: FunctionContext,
  fn: string,
  s: string,
  old: string,
  replacement: string,
  n: number,
): string {
  if (old === replacement || n === 0) return s;
  if (old === "") {
    const runes = codePoints(s);
    const count = n < 0 || n > runes.length + 1 ? runes.length + 1 : n;
    ensureStringLength(ctx, fn, s.length + count * replacement.length);
    const parts: string[] = [];
    for (let i = 0; i < runes.length; i++) {
      if (i < count) parts.push(replacement);
      parts.push(runes[i] ?? "");
    }
    if (count > runes.length) parts.push(replacement);
    return parts.join("");
  }
  const positions: number[] = [];
  for (
    let at = s.indexOf(old);
    at >= 0 && (n < 0 || positions.length < n);
    at = s.indexOf(old, at + old.length)
  ) {
    positions.push(at);
  }
  if (positions.length === 0) return s;
  ensureStringLength(ctx, fn, s.length + positions.length * (replacement.length - old.length));
  const parts: string[] = [];
  let start = 0;
  for (const at of positions) {
    parts.push(s.slice(start, at), replacement);
    start = at + old.length;
  }
  parts.push(s.slice(start));
  return parts.join("");
}

/** Maps each code point, keeping the original where the mapping would change the rune count (Go's unicode.ToUpper). */
function mapRunes(s: string, map: (c: string) => string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII range check
  if (/^[\u0000-\u007f]*$/.test(s)) return map(s);
  let out = "";
  for (const c of s) {
    const mapped = map(c);
    out += codePoints(mapped).length === 1 ? mapped : c;
  }
  return out;
}

function foldEqual(a: string, b: string): boolean {
  if (a === b) return true;
  const x = codePoints(a);
  const y = codePoints(b);
  if (x.length !== y.length) return false;
  return x.every((c, i) => {
    const d = y[i] ?? "";
    if (c === d) return true;
    const lower = (s: string) => mapRunes(s, (t) => t.toLowerCase());
    const upper = (s: string) => mapRunes(s, (t) => t.toUpperCase());
    return lower(c) === lower(d) || upper(c) === upper(d);
  });
}

function goTrim(s: string, cutset: string): string {
  if (s === "" || cutset === "") return s;
  const cut = new Set(codePoints(cutset));
  const runes = codePoints(s);
  let start = 0;
  let end = runes.length;
  while (start < end && cut.has(runes[start] ?? "")) start++;
  while (end > start && cut.has(runes[end - 1] ?? "")) end--;
  return runes.slice(start, end).join("");
}

/** Go's strings.Split: an empty separator splits into runes; Split("", "") is empty. */
function goSplit(ctx: FunctionContext, s: string, sep: string): string[] {
  if (sep === "") {
    ensureArrayLength(ctx, "split", s.length);
    return codePoints(s);
  }
  let count = 1;
  for (let at = s.indexOf(sep); at >= 0; at = s.indexOf(sep, at + sep.length)) {
    count++;
    ensureArrayLength(ctx, "split", count);
  }
  return s.split(sep);
}

/** Go's path.Clean (what filepath.Join does to a single element on Unix). */
export function cleanPath(path: string): string {
  if (path === "") return ".";
  const rooted = path.startsWith("/");
  const out: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!rooted) out.push("..");
      continue;
    }
    out.push(part);
  }
  const joined = out.join("/");
  if (rooted) return `/${joined}`;
  return joined === "" ? "." : joined;
}

/** Truncates to `n` UTF-8 bytes like Go's `s[:n]`, dropping a rune that would be cut in half. */
function truncateBytes(s: string, n: number): string {
  const bytes = Buffer.from(s, "utf8");
  if (n >= bytes.length) return s;
  let end = Math.max(0, Math.trunc(n));
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString("utf8");
}

const BASE64 = /^[A-Za-z0-9+/]*$/;

/** Go's base64.StdEncoding.DecodeString: padding required, CR/LF ignored. */
function decodeBase64(input: string): string {
  const s = input.replace(/[\r\n]/g, "");
  const body = s.replace(/={1,2}$/, "");
  const badIndex = [...body].findIndex((c) => !BASE64.test(c));
  if (badIndex >= 0) throw functionError("base64_decode", `illegal base64 data at input byte ${badIndex}`);
  if (s.length % 4 !== 0 || body.length % 4 === 1) {
    throw functionError("base64_decode", `illegal base64 data at input byte ${Math.max(0, s.length - 1)}`);
  }
  return Buffer.from(s, "base64").toString("utf8");
}

function labelMatch(selector: JsonValue | undefined, labels: JsonValue | undefined): boolean {
  if (!isJsonObject(selector)) throw argumentTypeError("label_match", 1, "Object");
  if (!isJsonObject(labels)) throw argumentTypeError("label_match", 2, "Object");
  for (const [key, value] of Object.entries(selector)) {
    if (!Object.hasOwn(labels, key)) return false;
    const other = labels[key];
    if (typeof value === "object" && value !== null) return false;
    if (other !== value) return false;
  }
  return true;
}

/** The string functions: compare … base64_encode. */
export const stringFunctions: readonly FunctionDef[] = [
  {
    name: "compare",
    args: [arg("string"), arg("string")],
    returns: "number",
    description: "compares two strings lexicographically (byte-wise): -1, 0 or 1",
    call: (a) => Buffer.compare(Buffer.from(str(a, 0)), Buffer.from(str(a, 1))),
  },
  {
    name: "equal_fold",
    args: [arg("string"), arg("string")],
    returns: "boolean",
    description: "true when the strings are equal under simple Unicode case folding",
    call: (a) => foldEqual(str(a, 0), str(a, 1)),
  },
  {
    name: "replace",
    args: [arg("string"), arg("string"), arg("string"), arg("number")],
    returns: "string",
    description: "replaces the first n occurrences of old with new (all when n < 0)",
    call: (a, ctx) => goReplace(ctx, "replace", str(a, 0), str(a, 1), str(a, 2), Math.trunc(num(a, 3))),
  },
  {
    name: "replace_all",
    args: [arg("string"), arg("string"), arg("string")],
    returns: "string",
    description: "replaces every occurrence of old with new",
    call: (a, ctx) => goReplace(ctx, "replace_all", str(a, 0), str(a, 1), str(a, 2), -1),
  },
  {
    name: "to_upper",
    args: [arg("string")],
    returns: "string",
    description: "upper-cases the string",
    call: (a) => mapRunes(str(a, 0), (c) => c.toUpperCase()),
  },
  {
    name: "to_lower",
    args: [arg("string")],
    returns: "string",
    description: "lower-cases the string",
    call: (a) => mapRunes(str(a, 0), (c) => c.toLowerCase()),
  },
  {
    name: "trim",
    args: [arg("string"), arg("string")],
    returns: "string",
    description: "removes the characters of the cutset from both ends of the string",
    call: (a) => goTrim(str(a, 0), str(a, 1)),
  },
  {
    name: "trim_prefix",
    args: [arg("string"), arg("string")],
    returns: "string",
    description: "removes the prefix when the string starts with it",
    call: (a) => {
      const s = str(a, 0);
      const prefix = str(a, 1);
      return s.startsWith(prefix) ? s.slice(prefix.length) : s;
    },
  },
  {
    name: "split",
    args: [arg("string"), arg("string")],
    returns: "array[string]",
    description: "splits the string on the separator",
    call: (a, ctx) => goSplit(ctx, str(a, 0), str(a, 1)),
  },
  {
    name: "pattern_match",
    args: [arg("string"), arg("string", "number")],
    returns: "boolean",
    description: "matches a string or number against a glob pattern (* and ?)",
    call: (a) => {
      const value = scalarToString(a[1]);
      if (value === undefined) throw argumentTypeError("pattern_match", 2, "String or Real");
      return matchWildcard(str(a, 0), value);
    },
  },
  {
    name: "label_match",
    args: [arg("object"), arg("object")],
    returns: "boolean",
    description: "true when every label of the first map is present with the same value in the second",
    call: (a) => labelMatch(a[0], a[1]),
  },
  {
    name: "to_boolean",
    args: [arg("string")],
    returns: "boolean",
    description: "converts 'true' or 'false' (any case) to a boolean",
    call: (a) => {
      const s = str(a, 0);
      const lower = s.toLowerCase();
      if (lower === "true") return true;
      if (lower === "false") return false;
      throw functionError("to_boolean", `lowercase argument must be 'true' or 'false' (provided: '${s}')`);
    },
  },
  {
    name: "truncate",
    args: [arg("string"), arg("number")],
    returns: "string",
    description: "keeps at most the first n bytes of the string",
    call: (a) => truncateBytes(str(a, 0), Math.max(0, num(a, 1))),
  },
  {
    name: "path_canonicalize",
    args: [arg("string")],
    returns: "string",
    description: "normalises a file path: removes duplicate slashes, . and ..",
    call: (a) => {
      const s = str(a, 0);
      return s === "" ? "" : cleanPath(s);
    },
  },
  {
    name: "base64_decode",
    args: [arg("string")],
    returns: "string",
    description: "decodes a standard, padded base64 string",
    call: (a) => decodeBase64(str(a, 0)),
  },
  {
    name: "base64_encode",
    args: [arg("string")],
    returns: "string",
    description: "encodes a string as standard, padded base64",
    call: (a, ctx) => {
      const bytes = Buffer.from(str(a, 0), "utf8");
      ensureStringLength(ctx, "base64_encode", Math.ceil(bytes.length / 3) * 4);
      return bytes.toString("base64");
    },
  },
];
