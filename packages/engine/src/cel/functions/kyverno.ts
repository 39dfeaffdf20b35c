/**
 * Kyverno's CEL libraries: `resource`, `http`, `globalContext`, `image.GetMetadata` (external data,
 * read through the session's `ContextLoader`, never I/O here), `image()`, `parseServiceAccount`,
 * `json` / `yaml`, `time`, `x509`, hashes, `math.round`, `listObjToMap`, `jsonpatch.escapeKey` and
 * `random`.
 */

import { createHash, randomInt } from "node:crypto";
import {
  type CelFunc,
  CelScalar,
  type CelValue,
  celEnv,
  celFunc,
  celList,
  celMethod,
  isCelError,
  isCelList,
  isCelMap,
  parse,
  plan,
} from "@bufbuild/cel";
import type { JsonValue, KubeObject } from "@kyverno-ts/api";
import { parse as parseYaml } from "yaml";
import type { ApiCallRequest, LoadResult } from "../../engine-types.js";
import { parseImage } from "../../images/images.js";
import { x509Decode } from "../../jmespath/x509.js";
import type { SessionSlot } from "../session.js";
import { opaque, opaquePayload, toCelValue, toJson } from "../values.js";

const { DYN, STRING, BOOL, INT, DOUBLE } = CelScalar;

function loaded(result: LoadResult | undefined, what: string): CelValue {
  if (result === undefined) throw new Error(`${what}: no data source is configured`);
  if (!result.ok) throw new Error(`${what}: ${result.error}`);
  return toCelValue(result.value);
}

function stringMap(value: CelValue): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isCelMap(value)) return out;
  for (const [k, v] of value.entries())
    out[String(k)] = typeof v === "string" ? v : JSON.stringify(toJson(v));
  return out;
}

function imageOf(value: CelValue): NonNullable<ReturnType<typeof parseImage>> {
  const ref = opaquePayload(value, "image");
  const info = typeof ref === "string" ? parseImage(ref) : undefined;
  if (info === undefined) throw new Error("no such overload: expected an image");
  return info;
}

function hash(algorithm: string): (s: string) => string {
  return (s) => createHash(algorithm).update(s).digest("hex");
}

/** A random string matching a simple pattern of character classes with counts (`[a-z0-9]{8}`). */
function randomString(pattern: string): string {
  let out = "";
  const re = /\[([^\]]+)\]\{(\d+)\}|(.)/g;
  for (const m of pattern.matchAll(re)) {
    if (m[3] !== undefined) {
      out += m[3];
      continue;
    }
    const chars: string[] = [];
    const set = m[1] ?? "";
    for (let i = 0; i < set.length; i++) {
      if (set[i + 1] === "-" && i + 2 < set.length) {
        for (let c = set.charCodeAt(i); c <= set.charCodeAt(i + 2); c++) chars.push(String.fromCharCode(c));
        i += 2;
      } else chars.push(set[i] ?? "");
    }
    for (let n = Number(m[2]); n > 0; n--) out += chars[randomInt(chars.length)] ?? "";
  }
  return out;
}

/** `time.toCron`: minute hour day-of-month month day-of-week of a timestamp (UTC). */
function toCron(date: Date): string {
  return `${date.getUTCMinutes()} ${date.getUTCHours()} ${date.getUTCDate()} ${date.getUTCMonth() + 1} ${date.getUTCDay()}`;
}

function timestampOf(value: CelValue): Date {
  const m = (value as { message?: { $typeName?: string; seconds?: bigint; nanos?: number } }).message;
  if (m?.$typeName !== "google.protobuf.Timestamp") throw new Error("expected a timestamp");
  return new Date(Number(m.seconds ?? 0n) * 1000 + Math.floor((m.nanos ?? 0) / 1e6));
}

function durationMs(value: CelValue): number {
  const m = (value as { message?: { $typeName?: string; seconds?: bigint; nanos?: number } }).message;
  if (m?.$typeName !== "google.protobuf.Duration") throw new Error("expected a duration");
  return Number(m.seconds ?? 0n) * 1000 + Math.floor((m.nanos ?? 0) / 1e6);
}

function listObjToMap(keys: CelValue, values: CelValue, keyField: string, valueField: string): CelValue {
  if (!isCelList(keys) || !isCelList(values)) throw new Error("listObjToMap needs two lists");
  const ks = [...keys];
  const vs = [...values];
  const out = new Map<string, CelValue>();
  ks.forEach((k, i) => {
    const v = vs[i];
    if (!isCelMap(k) || !isCelMap(v)) return;
    const key = k.get(keyField);
    const value = v.get(valueField);
    if (typeof key === "string" && value !== undefined) out.set(key, value);
  });
  return out as unknown as CelValue;
}

/** Kyverno's functions; those reading external data reach the loader of `slot`'s session. */
export function kyvernoFunctions(slot: SessionSlot): CelFunc[] {
  const loader = () => slot.current?.loader ?? {};
  const resourceCall = (
    verb: "get" | "list" | "post",
    apiVersion: string,
    resource: string,
    namespace: string,
    extra: object,
  ) =>
    loaded(loader().kubeResource?.({ verb, apiVersion, resource, namespace, ...extra }), `resource.${verb}`);
  const http = (call: ApiCallRequest) => loaded(loader().apiCall?.(call), `http.${call.method}`);
  return [
    celFunc("resource.Get", [STRING, STRING, STRING, STRING], DYN, (v, r, ns, name) =>
      resourceCall("get", v, r, ns, { name }),
    ),
    celFunc("resource.List", [STRING, STRING, STRING], DYN, (v, r, ns) => resourceCall("list", v, r, ns, {})),
    celFunc("resource.List", [STRING, STRING, STRING, DYN], DYN, (v, r, ns, labels) =>
      resourceCall("list", v, r, ns, { labels: stringMap(labels) }),
    ),
    celFunc("resource.Post", [STRING, STRING, DYN], DYN, (v, r, data) =>
      resourceCall("post", v, r, "", { data: toJson(data) }),
    ),
    celFunc("http.Get", [STRING], DYN, (url) => http({ url, method: "GET" })),
    celFunc("http.Get", [STRING, DYN], DYN, (url, headers) =>
      http({
        url,
        method: "GET",
        headers: Object.entries(stringMap(headers)).map(([key, value]) => ({ key, value })),
      }),
    ),
    celFunc("http.Post", [STRING, DYN], DYN, (url, data) =>
      http({ url, method: "POST", data: toJson(data) }),
    ),
    celFunc("http.Post", [STRING, DYN, DYN], DYN, (url, data, headers) =>
      http({
        url,
        method: "POST",
        data: toJson(data),
        headers: Object.entries(stringMap(headers)).map(([key, value]) => ({ key, value })),
      }),
    ),
    celFunc("globalContext.Get", [STRING, STRING], DYN, (name, projection) => {
      const source = loader();
      if (projection !== "" && source.globalContext !== undefined)
        return loaded(source.globalContext(name, projection), "globalContext.Get");
      const value = loaded(source.globalReference?.(name), "globalContext.Get");
      if (projection === "") return value;
      if (!isCelMap(value)) throw new Error(`globalContext.Get: projection ${projection} of a non-object`);
      const v = value.get(projection);
      if (v === undefined) throw new Error(`globalContext.Get: no projection ${projection}`);
      return v;
    }),
    celFunc("image.GetMetadata", [STRING], DYN, (ref) =>
      loaded(loader().imageRegistry?.(ref), "image.GetMetadata"),
    ),
    celFunc("imagedata.Get", [STRING], DYN, (ref) => loaded(loader().imageRegistry?.(ref), "imagedata.Get")),
    celFunc("image", [STRING], DYN, (s) => {
      if (parseImage(s) === undefined) throw new Error(`invalid image reference: ${s}`);
      return opaque("image", s);
    }),
    celFunc("isImage", [STRING], BOOL, (s) => parseImage(s) !== undefined),
    celMethod("registry", DYN, [], STRING, function () {
      return imageOf(this).registry;
    }),
    celMethod("repository", DYN, [], STRING, function () {
      return imageOf(this).path;
    }),
    celMethod("identifier", DYN, [], STRING, function () {
      const i = imageOf(this);
      return i.digest !== "" ? i.digest : i.tag;
    }),
    celMethod("tag", DYN, [], STRING, function () {
      return imageOf(this).tag;
    }),
    celMethod("digest", DYN, [], STRING, function () {
      return imageOf(this).digest;
    }),
    celMethod("containsDigest", DYN, [], BOOL, function () {
      return imageOf(this).digest !== "";
    }),
    celFunc("parseServiceAccount", [STRING], DYN, (username) => {
      const parts = username.split(":");
      const sa = parts.length === 4 && parts[0] === "system" && parts[1] === "serviceaccount";
      return toCelValue({ Namespace: sa ? (parts[2] ?? "") : "", Name: sa ? (parts[3] ?? "") : "" });
    }),
    celFunc("json.unmarshal", [STRING], DYN, (s) => toCelValue(JSON.parse(s) as JsonValue)),
    celFunc("json.marshal", [DYN], STRING, (v) => JSON.stringify(toJson(v))),
    celFunc("yaml.parse", [STRING], DYN, (s) => toCelValue(parseYaml(s) as JsonValue)),
    celFunc("x509.decode", [STRING], DYN, (pem) => toCelValue(x509Decode(pem))),
    celFunc("md5", [STRING], STRING, hash("md5")),
    celFunc("sha1", [STRING], STRING, hash("sha1")),
    celFunc("sha256", [STRING], STRING, hash("sha256")),
    celFunc("math.round", [DOUBLE, INT], DOUBLE, (x, digits) => {
      const f = 10 ** Number(digits);
      return Math.round(x * f) / f;
    }),
    celFunc("random", [], STRING, () => randomString("[0-9a-z]{8}")),
    celFunc("random", [STRING], STRING, (pattern) => randomString(pattern)),
    celFunc("listObjToMap", [DYN, DYN, STRING, STRING], DYN, listObjToMap),
    celFunc("jsonpatch.escapeKey", [STRING], STRING, (s) => s.replaceAll("~", "~0").replaceAll("/", "~1")),
    celFunc("time.now", [], DYN, () => toTimestamp(slot.current?.now ?? new Date())),
    celFunc("time.truncate", [DYN, DYN], DYN, (t, d) => {
      const ms = durationMs(d);
      const at = timestampOf(t).getTime();
      return toTimestamp(new Date(ms <= 0 ? at : at - (at % ms)));
    }),
    celFunc("time.toCron", [DYN], STRING, (t) => toCron(timestampOf(t))),
    celFunc("generator.Apply", [STRING, DYN], BOOL, (namespace, objects) => {
      const session = slot.current;
      if (session?.generated === undefined)
        throw new Error("generator.Apply is only available in GeneratingPolicies");
      const list = isCelList(objects) ? [...objects] : [objects];
      // A `resource.List` answer (`{items: [...]}`) stands for its items, as upstream's generator reads lists.
      const objectsOf = (value: JsonValue): JsonValue[] =>
        value !== null &&
        typeof value === "object" &&
        !Array.isArray(value) &&
        Array.isArray(value.items) &&
        (value.kind === undefined || (typeof value.kind === "string" && value.kind.endsWith("List")))
          ? value.items
          : [value];
      for (const object of list.flatMap((item) => objectsOf(toJson(item)))) {
        if (object === null || typeof object !== "object" || Array.isArray(object)) continue;
        const metadata = { ...((object.metadata as Record<string, JsonValue> | undefined) ?? {}) };
        if (namespace !== "") metadata.namespace = namespace;
        session.generated.push({ ...object, metadata } as KubeObject);
      }
      return true;
    }),
    celFunc("list", [DYN], DYN, (v) => (isCelList(v) ? v : celList([v]))),
  ];
}

/** CEL's standard `timestamp(string)` conversion, planned once, to make timestamps of dates. */
const timestampProgram = plan(celEnv({ variables: { t: STRING } }), parse("timestamp(t)"));

/** A CEL timestamp of a date. */
function toTimestamp(date: Date): CelValue {
  const value = timestampProgram({ t: date.toISOString() });
  if (isCelError(value)) throw new Error(value.message);
  return value;
}
