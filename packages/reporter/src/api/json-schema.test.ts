import Fastify from "fastify";
import { describe, expect, expectTypeOf, it } from "vitest";
import { type Infer, j } from "./json-schema.js";

const item = j.object({
  name: j.string(),
  /** Documented optional field. */
  namespace: j.optional(j.string({ maxLength: 3 })),
  kind: j.enum(["Pod", "Job"]),
  count: j.integer({ minimum: 0 }),
  tags: j.optional(j.array(j.string())),
  labels: j.record(j.string()),
});

describe("json-schema builders", () => {
  it("build plain JSON Schemas: properties not marked optional are required", () => {
    expect(JSON.parse(JSON.stringify(item))).toEqual({
      type: "object",
      properties: {
        name: { type: "string" },
        namespace: { type: "string", maxLength: 3 },
        kind: { type: "string", enum: ["Pod", "Job"] },
        count: { type: "integer", minimum: 0 },
        tags: { type: "array", items: { type: "string" } },
        labels: { type: "object", additionalProperties: { type: "string" } },
      },
      required: ["name", "kind", "count", "labels"],
    });
    expect(Object.keys(item.properties.namespace)).toEqual(["type", "maxLength"]);
  });

  it("keeps a property optional when properties are spread into another object", () => {
    const extended = j.object({ ...item.properties, extra: j.boolean() });
    expect(JSON.parse(JSON.stringify(extended)).required).toEqual([
      "name",
      "kind",
      "count",
      "labels",
      "extra",
    ]);
    expect(JSON.parse(JSON.stringify(j.object({ a: j.optional(j.string()) })))).toEqual({
      type: "object",
      properties: { a: { type: "string" } },
    });
  });

  it("infers the TypeScript type of the values", () => {
    expectTypeOf<Infer<typeof item>>().toEqualTypeOf<{
      name: string;
      namespace?: string;
      kind: "Pod" | "Job";
      count: number;
      tags?: string[];
      labels: Record<string, string>;
    }>();
    expectTypeOf<Infer<ReturnType<typeof j.string<"a" | "b">>>>().toEqualTypeOf<"a" | "b">();
  });

  it("compiles into fastify validators and serializers", async () => {
    const app = Fastify();
    app.get(
      "/",
      {
        schema: {
          querystring: j.object({ n: j.optional(j.integer({ minimum: 1 })) }),
          response: { 200: item },
        },
      },
      async () => ({ name: "a", kind: "Pod", count: 1, labels: {}, secret: "dropped" }),
    );
    const ok = await app.inject({ url: "/?n=2" });
    expect(ok.json()).toEqual({ name: "a", kind: "Pod", count: 1, labels: {} });
    expect((await app.inject({ url: "/?n=0" })).statusCode).toBe(400);
    await app.close();
  });
});
