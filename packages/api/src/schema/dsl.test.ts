import { describe, expect, expectTypeOf, it } from "vitest";
import type { JsonObject, JsonValue } from "../policy/json.js";
import type { Policy, Rule } from "../policy/types.js";
import { extend, type Infer, omit, s } from "./dsl.js";
import { validate } from "./validate.js";

const item = s.object(
  {
    name: s.string(),
    mode: s.enum(["Audit", "Enforce"]),
    count: s.integer(),
    tags: s.strings(),
    data: s.any(),
    nested: s.object({ on: s.boolean() }, { required: ["on"] }),
  },
  { required: ["name"], defaults: { mode: "Audit" } },
);

describe("schema types", () => {
  it("infers the loaded type: required and defaulted fields present, the others optional", () => {
    expectTypeOf<Infer<typeof item>>().toEqualTypeOf<{
      name: string;
      mode: "Audit" | "Enforce";
      count?: number;
      tags?: string[];
      data?: JsonValue;
      nested?: { on: boolean };
    }>();
    // What the type promises is what validation delivers: the default fills `mode`.
    expect(validate(item, { name: "a" })).toEqual({ value: { name: "a", mode: "Audit" }, issues: [] });
  });

  it("types extend, omit, unions and typed overrides", () => {
    const more = extend(item, { extra: s.stringMap() }, { required: ["extra"] });
    expectTypeOf<Infer<typeof more>["extra"]>().toEqualTypeOf<Record<string, string>>();
    const dropped = omit(item, ["data"]);
    expectTypeOf<Infer<typeof dropped>>().not.toHaveProperty("data");
    expectTypeOf<Infer<typeof dropped>>().toHaveProperty("tags");
    const either = s.union({ object: s.object({ a: s.string() }), array: s.strings() });
    expectTypeOf<Infer<typeof either>>().toEqualTypeOf<{ a?: string } | string[]>();
    expectTypeOf<Infer<ReturnType<typeof s.typed<JsonObject>>>>().toEqualTypeOf<JsonObject>();
  });

  it("gives the policy wire types from the policy schema", () => {
    expectTypeOf<Policy["spec"]["background"]>().toEqualTypeOf<boolean>();
    expectTypeOf<Policy["spec"]["failurePolicy"]>().toEqualTypeOf<"Fail" | "Ignore">();
    expectTypeOf<Rule["name"]>().toEqualTypeOf<string>();
    expectTypeOf<Rule["verifyImages"]>().toEqualTypeOf<JsonValue[] | undefined>();
  });
});
