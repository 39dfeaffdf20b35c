import { describe, expect, it } from "vitest";
import { conditionPaths } from "./condition-paths.js";

describe("condition paths", () => {
  it("are the pointers of entries of any, all and legacy lists, built once", () => {
    const paths = conditionPaths("/validate/deny/conditions");
    expect(paths.base).toBe("/validate/deny/conditions");
    expect(paths.entry("all", 0)).toEqual({
      at: "/validate/deny/conditions/all/0",
      key: "/validate/deny/conditions/all/0/key",
      value: "/validate/deny/conditions/all/0/value",
    });
    expect(paths.entry("any", 1).key).toBe("/validate/deny/conditions/any/1/key");
    expect(paths.entry("list", 2).value).toBe("/validate/deny/conditions/2/value");
    expect(paths.entry("all", 0)).toBe(paths.entry("all", 0));
  });
});
