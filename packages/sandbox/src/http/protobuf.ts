/**
 * Decoding of the Kubernetes protobuf envelope (`k8s\0` + runtime.Unknown) for the kinds kubectl's
 * typed `create` generators send as protobuf (`kubectl create namespace|configmap|secret|
 * serviceaccount|role|clusterrole|rolebinding|clusterrolebinding`). Other kinds get a 415.
 * Zero values are dropped, as the JSON encoding's `omitempty` would.
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";

type Field =
  | { name: string; type: "string" | "bytes" | "int" | "bool" | "time"; repeated?: boolean }
  | { name: string; type: "message"; schema: () => Schema; repeated?: boolean }
  | { name: string; type: "map"; bytes?: boolean };
type Schema = Record<number, Field>;

const s = (name: string, repeated = false): Field => ({ name, type: "string", repeated });
const m = (name: string, schema: () => Schema, repeated = false): Field => ({
  name,
  type: "message",
  schema,
  repeated,
});

const OWNER_REFERENCE: Schema = {
  1: s("kind"),
  3: s("name"),
  4: s("uid"),
  5: s("apiVersion"),
  6: { name: "controller", type: "bool" },
  7: { name: "blockOwnerDeletion", type: "bool" },
};
const OBJECT_META: Schema = {
  1: s("name"),
  2: s("generateName"),
  3: s("namespace"),
  5: s("uid"),
  6: s("resourceVersion"),
  7: { name: "generation", type: "int" },
  8: { name: "creationTimestamp", type: "time" },
  11: { name: "labels", type: "map" },
  12: { name: "annotations", type: "map" },
  13: m("ownerReferences", () => OWNER_REFERENCE, true),
  14: s("finalizers", true),
};
const meta = m("metadata", () => OBJECT_META);
const POLICY_RULE: Schema = {
  1: s("verbs", true),
  2: s("apiGroups", true),
  3: s("resources", true),
  4: s("resourceNames", true),
  5: s("nonResourceURLs", true),
};
const SUBJECT: Schema = { 1: s("kind"), 2: s("apiGroup"), 3: s("name"), 4: s("namespace") };
const ROLE_REF: Schema = { 1: s("apiGroup"), 2: s("kind"), 3: s("name") };
const BINDING: Schema = { 1: meta, 2: m("subjects", () => SUBJECT, true), 3: m("roleRef", () => ROLE_REF) };
const OBJECT_REFERENCE: Schema = {
  1: s("kind"),
  2: s("namespace"),
  3: s("name"),
  4: s("uid"),
  5: s("apiVersion"),
};

const KINDS: Record<string, Schema> = {
  "v1/Namespace": {
    1: meta,
    2: m("spec", () => ({ 1: s("finalizers", true) })),
    3: m("status", () => ({ 1: s("phase") })),
  },
  "v1/ConfigMap": {
    1: meta,
    2: { name: "data", type: "map" },
    3: { name: "binaryData", type: "map", bytes: true },
    4: { name: "immutable", type: "bool" },
  },
  "v1/Secret": {
    1: meta,
    2: { name: "data", type: "map", bytes: true },
    3: s("type"),
    4: { name: "stringData", type: "map" },
    5: { name: "immutable", type: "bool" },
  },
  "v1/ServiceAccount": {
    1: meta,
    2: m("secrets", () => OBJECT_REFERENCE, true),
    3: m("imagePullSecrets", () => ({ 1: s("name") }), true),
    4: { name: "automountServiceAccountToken", type: "bool" },
  },
  "rbac.authorization.k8s.io/v1/Role": { 1: meta, 2: m("rules", () => POLICY_RULE, true) },
  "rbac.authorization.k8s.io/v1/ClusterRole": { 1: meta, 2: m("rules", () => POLICY_RULE, true) },
  "rbac.authorization.k8s.io/v1/RoleBinding": BINDING,
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": BINDING,
};

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

interface WireField {
  num: number;
  wire: number;
  value: bigint | Buffer;
}

function varint(buf: Buffer, pos: { i: number }): bigint {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    const byte = buf[pos.i++];
    if (byte === undefined) throw new Error("truncated varint");
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return result;
    shift += 7n;
  }
}

function fields(buf: Buffer): WireField[] {
  const out: WireField[] = [];
  const pos = { i: 0 };
  while (pos.i < buf.length) {
    const key = Number(varint(buf, pos));
    const num = key >> 3;
    const wire = key & 7;
    if (wire === 0) out.push({ num, wire, value: varint(buf, pos) });
    else if (wire === 2) {
      const len = Number(varint(buf, pos));
      out.push({ num, wire, value: buf.subarray(pos.i, pos.i + len) });
      pos.i += len;
    } else if (wire === 1) pos.i += 8;
    else if (wire === 5) pos.i += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
  return out;
}

function decodeMessage(buf: Buffer, schema: Schema): JsonObject {
  const out: JsonObject = {};
  for (const f of fields(buf)) {
    const field = schema[f.num];
    if (field === undefined) continue;
    const value = decodeValue(f, field);
    if (field.type === "map") {
      const entry = value as [string, string];
      out[field.name] = { ...((out[field.name] as JsonObject | undefined) ?? {}), [entry[0]]: entry[1] };
    } else if ("repeated" in field && field.repeated === true)
      out[field.name] = [...((out[field.name] as JsonValue[] | undefined) ?? []), value as JsonValue];
    else out[field.name] = value as JsonValue;
  }
  for (const [k, v] of Object.entries(out)) if (v === "" || v === false || v === 0) delete out[k];
  return out;
}

function decodeValue(f: WireField, field: Field): JsonValue | [string, string] {
  const bytes = f.value instanceof Buffer ? f.value : Buffer.alloc(0);
  switch (field.type) {
    case "string":
      return bytes.toString("utf8");
    case "bytes":
      return bytes.toString("base64");
    case "int":
      return Number(f.value as bigint);
    case "bool":
      return f.value === 1n;
    case "time": {
      const t = decodeMessage(bytes, {
        1: { name: "seconds", type: "int" },
        2: { name: "nanos", type: "int" },
      });
      return `${new Date(Number(t.seconds ?? 0) * 1000).toISOString().slice(0, 19)}Z`;
    }
    case "message":
      return decodeMessage(bytes, field.schema());
    case "map": {
      const entry = fields(bytes);
      const key = entry.find((e) => e.num === 1)?.value;
      const value = entry.find((e) => e.num === 2)?.value;
      const k = key instanceof Buffer ? key.toString("utf8") : "";
      const v =
        value instanceof Buffer
          ? field.bytes === true
            ? value.toString("base64")
            : value.toString("utf8")
          : "";
      return [k, v];
    }
  }
}

/** Whether a body starts with the protobuf envelope magic. */
export function isProtobufEnvelope(body: Buffer): boolean {
  return body.length >= 4 && body.subarray(0, 4).equals(MAGIC);
}

/** Decodes an envelope into a JSON object, or `undefined` when its kind is not one we can decode. */
export function decodeProtobuf(body: Buffer): JsonObject | undefined {
  const unknown = fields(body.subarray(4));
  const typeMeta = unknown.find((f) => f.num === 1)?.value;
  const raw = unknown.find((f) => f.num === 2)?.value;
  if (!(typeMeta instanceof Buffer) || !(raw instanceof Buffer)) return undefined;
  const tm = decodeMessage(typeMeta, { 1: s("apiVersion"), 2: s("kind") });
  const apiVersion = typeof tm.apiVersion === "string" ? tm.apiVersion : "";
  const kind = typeof tm.kind === "string" ? tm.kind : "";
  const schema = KINDS[`${apiVersion}/${kind}`];
  if (schema === undefined) return undefined;
  return { apiVersion, kind, ...decodeMessage(raw, schema) };
}
