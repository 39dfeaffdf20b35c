import { describe, expect, it } from "vitest";
import { EMPTY_FILTERS, filterQueryString, parseFilters, toApiFilter, writeFilters } from "./filter-state.ts";

describe("filter state in the query string", () => {
  it("reads repeated parameters and ignores unknown statuses and severities", () => {
    const filters = parseFilters(
      new URLSearchParams(
        "namespaces=a&namespaces=b&namespaces=a&status=fail&status=bogus&severities=high&search=%20web%20",
      ),
    );
    expect(filters).toEqual({
      ...EMPTY_FILTERS,
      namespaces: ["a", "b"],
      status: ["fail"],
      severities: ["high"],
      search: "web",
    });
  });

  it("writes filters back, keeps other parameters and restarts pagination", () => {
    const out = writeFilters(new URLSearchParams("rpage=3&rsize=50&namespaces=old&cpage=2"), {
      ...EMPTY_FILTERS,
      namespaces: ["shop"],
      kinds: ["Pod", "Deployment"],
    });
    expect(out.toString()).toBe("rsize=50&namespaces=shop&kinds=Pod&kinds=Deployment");
    expect(filterQueryString(EMPTY_FILTERS)).toBe("");
    expect(filterQueryString({ ...EMPTY_FILTERS, search: "x" })).toBe("?search=x");
  });

  it("builds the API filter without empty lists; the page's own values win", () => {
    const filters = { ...EMPTY_FILTERS, sources: ["trivy"], status: ["fail" as const] };
    expect(toApiFilter(filters)).toEqual({ sources: ["trivy"], status: ["fail"] });
    expect(toApiFilter(filters, { sources: ["kyverno"] })).toEqual({
      sources: ["kyverno"],
      status: ["fail"],
    });
  });
});
