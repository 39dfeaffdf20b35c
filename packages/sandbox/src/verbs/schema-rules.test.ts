import type { ServerResponse } from "node:http";
import type { JsonObject } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { ApiError } from "../http/status.js";
import { compileStructuralSchema } from "../registry/structural-schema.js";
import type { ResourceType } from "../registry/types.js";
import type { ResourceRequest } from "./context.js";
import { decodeCustomResource, validateCustomResource } from "./schema-rules.js";

const SCHEMA: JsonObject = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      required: ["size"],
      properties: {
        size: { type: "integer", minimum: 1, maximum: 10 },
        mode: { type: "string", enum: ["a", "b"], default: "a" },
        name: { type: "string", pattern: "^[a-z]+$", maxLength: 5 },
        port: { "x-kubernetes-int-or-string": true },
        note: { type: "string", nullable: true },
        items: {
          type: "array",
          maxItems: 3,
          items: {
            type: "object",
            properties: {
              key: { type: "string" },
              tags: { type: "object", additionalProperties: { type: "string" } },
            },
          },
        },
        free: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
      },
    },
  },
};

const resource = {
  group: "example.com",
  version: "v1",
  kind: "Widget",
  schema: compileStructuralSchema(SCHEMA),
} as ResourceType;

/** A request whose response collects the Warning headers. */
function request(fieldValidation?: string): { request: ResourceRequest; warnings: () => string[] } {
  const headers = new Map<string, string[]>();
  const res = {
    getHeader: (name: string) => headers.get(name),
    setHeader: (name: string, value: string[]) => headers.set(name, value),
  } as unknown as ServerResponse;
  const query = new URLSearchParams(
    fieldValidation === undefined ? "" : `fieldValidation=${fieldValidation}`,
  );
  return {
    request: { resource, query, res } as unknown as ResourceRequest,
    warnings: () => headers.get("Warning") ?? [],
  };
}

const widget = (spec: JsonObject): JsonObject => ({
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: { name: "w" },
  spec,
});

function causesOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return { message: error.message, causes: error.details?.causes };
    throw error;
  }
  throw new Error("no error");
}

describe("custom resources against their structural schema", () => {
  it("prunes unknown fields with a warning naming each path, keeps preserved ones, applies defaults", () => {
    const r = request();
    const out = decodeCustomResource(
      resource,
      {
        ...widget({
          size: 2,
          extra: 1,
          items: [{ key: "k", bogus: true, tags: { a: "x" } }],
          free: { any: { thing: 1 } },
        }),
        status: { x: 1 },
      },
      r.request,
    );
    expect(out).toEqual({
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w" },
      spec: { size: 2, mode: "a", items: [{ key: "k", tags: { a: "x" } }], free: { any: { thing: 1 } } },
    });
    expect(r.warnings()).toEqual([
      '299 - "unknown field \\"spec.extra\\""',
      '299 - "unknown field \\"spec.items[0].bogus\\""',
      '299 - "unknown field \\"status\\""',
    ]);
  });

  it("refuses unknown fields with fieldValidation=Strict and says nothing with Ignore", () => {
    expect(
      causesOf(() =>
        decodeCustomResource(resource, widget({ size: 1, extra: 1 }), request("Strict").request),
      ),
    ).toEqual({
      message:
        'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.extra"',
      causes: undefined,
    });
    const ignored = request("Ignore");
    decodeCustomResource(resource, widget({ size: 1, extra: 1 }), ignored.request);
    expect(ignored.warnings()).toEqual([]);
  });

  it("lists every violation with its field path", () => {
    const spec: JsonObject = {
      size: 11,
      mode: "c",
      name: "ABCDEFG",
      port: true,
      note: null,
      items: [{ key: 1 }, { key: "x", tags: { t: 2 } }, {}, {}],
    };
    expect(causesOf(() => validateCustomResource(resource, widget(spec), request().request))).toEqual({
      message: expect.stringContaining('Widget.example.com "w" is invalid: ['),
      causes: [
        {
          reason: "FieldValueInvalid",
          message: "Invalid value: 11: spec.size in body should be less than or equal to 10",
          field: "spec.size",
        },
        {
          reason: "FieldValueNotSupported",
          message: 'Unsupported value: "c": supported values: "a", "b"',
          field: "spec.mode",
        },
        {
          reason: "FieldValueTooLong",
          message: "Too long: may not be more than 5 bytes",
          field: "spec.name",
        },
        {
          reason: "FieldValueInvalid",
          message: "Invalid value: \"ABCDEFG\": spec.name in body should match '^[a-z]+$'",
          field: "spec.name",
        },
        {
          reason: "FieldValueInvalid",
          message: 'Invalid value: true: spec.port in body must be of type integer,string: "boolean"',
          field: "spec.port",
        },
        {
          reason: "FieldValueTooMany",
          message: "Too many: 4: must have at most 3 items",
          field: "spec.items",
        },
        {
          reason: "FieldValueInvalid",
          message: 'Invalid value: 1: spec.items[0].key in body must be of type string: "integer"',
          field: "spec.items[0].key",
        },
        {
          reason: "FieldValueInvalid",
          message: 'Invalid value: 2: spec.items[1].tags.t in body must be of type string: "integer"',
          field: "spec.items[1].tags.t",
        },
      ],
    });
    expect(
      causesOf(() => validateCustomResource(resource, widget({ mode: "a" }), request().request)),
    ).toMatchObject({
      causes: [{ reason: "FieldValueRequired", field: "spec.size" }],
    });
  });

  it("accepts a valid object unchanged", () => {
    const object = widget({
      size: 3,
      mode: "b",
      name: "abc",
      port: "http",
      note: null,
      items: [{ key: "k" }],
    });
    expect(validateCustomResource(resource, object, request().request)).toEqual(object);
  });
});
