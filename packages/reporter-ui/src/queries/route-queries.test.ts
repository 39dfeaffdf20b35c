import { describe, expect, it } from "vitest";
import { createApiClient } from "../api/client.ts";
import { routeQueries } from "./route-queries.ts";
import { queries } from "./view-queries.ts";

const api = createApiClient({
  baseUrl: "http://reporter.local/",
  fetch: () => Promise.reject(new Error("no")),
});
const keys = (hash: string) => routeQueries(api, hash).map((q) => q.key);

describe("route queries", () => {
  it("lists the dashboard's first requests with the filters and table pages of the URL", () => {
    const filter = { namespaces: ["shop"], status: ["fail" as const] };
    expect(keys("#/?namespaces=shop&status=fail&rpage=3&rsize=50")).toEqual([
      queries.sources(api).key,
      queries.findings(api, filter).key,
      queries.severityFindings(api, filter).key,
      queries.namespaceCounts(api, filter).key,
      queries.results(api, { scope: "cluster" }, filter, { page: 1, size: 25 }).key,
      queries.resourceResults(api, "namespace", filter, { page: 3, size: 50 }).key,
    ]);
    expect(keys("")).toEqual(keys("#/"));
  });

  it("decodes path parameters as the router does and fixes the page's own filter", () => {
    const filter = { sources: ["kyverno"], policies: ["team/require labels"] };
    expect(keys("#/policies/kyverno/team%2Frequire%20labels")).toEqual([
      queries.sources(api).key,
      queries.policyDetails(api, "team/require labels").key,
      queries.policies(api, filter).key,
      queries.namespaceCounts(api, filter).key,
      queries.results(api, { scope: "namespace" }, filter, { page: 1, size: 25 }).key,
      queries.results(api, { scope: "cluster" }, filter, { page: 1, size: 25 }).key,
    ]);
    // Only Kyverno policies have details.
    expect(keys("#/policies/trivy/x")).not.toContain(queries.policyDetails(api, "x").key);
    expect(keys("#/resources/a%2Fb")[1]).toBe(queries.resource(api, "a/b").key);
  });

  it("preloads only the shell's navigation on an unknown route", () => {
    expect(keys("#/nowhere/at/all")).toEqual([queries.sources(api).key]);
  });
});
