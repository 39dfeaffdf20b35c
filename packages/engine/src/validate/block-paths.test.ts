import { describe, expect, it } from "vitest";
import { blockPaths } from "./block-paths.js";

const VALIDATE_PATHS = blockPaths("/validate");

describe("block paths", () => {
  it("are the pointers of a validate block and of its nested foreach entries, built once", () => {
    expect(VALIDATE_PATHS.preconditions.entry("all", 0).key).toBe("/validate/preconditions/all/0/key");
    expect(VALIDATE_PATHS.context).toBe("/validate/context");
    expect(VALIDATE_PATHS.pattern).toBe("/validate/pattern");
    expect(VALIDATE_PATHS.anyPattern(1)).toBe("/validate/anyPattern/1");
    const nested = VALIDATE_PATHS.foreach(0).foreach(2);
    expect(nested.base).toBe("/validate/foreach/0/foreach/2");
    expect(nested.deny.entry("any", 0).value).toBe(
      "/validate/foreach/0/foreach/2/deny/conditions/any/0/value",
    );
    expect(VALIDATE_PATHS.foreach(0)).toBe(VALIDATE_PATHS.foreach(0));
    expect(blockPaths("/x").foreach(100).base).toBe("/x/foreach/100");
  });
});
