import { describe, expect, it } from "vitest";
import {
  defaultKyvernoConfig,
  isExcludedRequester,
  isFilteredResource,
  parseKyvernoConfig,
  parseResourceFilters,
} from "./filters.js";

const target = (kind: string, namespace: string, name = "x", subresource = "") => ({
  group: "",
  version: "v1",
  kind,
  subresource,
  namespace,
  name,
});

describe("Kyverno ConfigMap", () => {
  it("parses resourceFilters entries with missing parts left empty", () => {
    const filters = parseResourceFilters(
      "[Event,*,*] [*/*,kube-system,*]\n[Node] [Pod,foo-system,redis*] [apps/v1/Deployment,a,b]",
    );
    expect(filters.map(({ kind, namespace, name }) => [kind, namespace, name])).toEqual([
      ["Event", "*", "*"],
      ["*/*", "kube-system", "*"],
      ["Node", "", ""],
      ["Pod", "foo-system", "redis*"],
      ["apps/v1/Deployment", "a", "b"],
    ]);
    expect(filters[1]?.selector).toEqual({ group: "*", version: "*", kind: "*", subresource: "*" });
    expect(filters[4]?.selector).toEqual({
      group: "apps",
      version: "v1",
      kind: "Deployment",
      subresource: "",
    });
  });

  it("filters resources by kind, subresource, namespace and name with wildcards", () => {
    const { config } = parseKyvernoConfig({
      resourceFilters: "[Pod,foo-system,redis*] [Node/*,*,*] [*/*,kyverno,*]",
    });
    expect(isFilteredResource(config, target("Pod", "foo-system", "redis-0"))).toBe(true);
    expect(isFilteredResource(config, target("Pod", "foo-system", "web-0"))).toBe(false);
    expect(isFilteredResource(config, target("Node", "", "n1", "status"))).toBe(true);
    expect(isFilteredResource(config, target("ConfigMap", "kyverno"))).toBe(true);
    expect(isFilteredResource(config, target("PolicyReport", "default"))).toBe(true);
  });

  it("applies the chart defaults when no ConfigMap is given", () => {
    const config = defaultKyvernoConfig();
    expect(isFilteredResource(config, target("Pod", "kube-system"))).toBe(true);
    expect(isFilteredResource(config, target("Event", "default"))).toBe(true);
    expect(isFilteredResource(config, target("Pod", "default"))).toBe(false);
    expect(isExcludedRequester(config, { username: "kubelet", groups: ["system:nodes"] }, undefined)).toBe(
      true,
    );
  });

  it("excludes requesters by username, group and roles; `!name` re-includes", () => {
    const { config } = parseKyvernoConfig({
      excludeUsernames: "system:serviceaccount:ci:*, !system:serviceaccount:ci:deployer",
      excludeGroups: "system:masters",
      excludeClusterRoles: "cluster-admin",
    });
    expect(isExcludedRequester(config, { username: "system:serviceaccount:ci:bot" }, undefined)).toBe(true);
    expect(isExcludedRequester(config, { username: "system:serviceaccount:ci:deployer" }, undefined)).toBe(
      false,
    );
    expect(isExcludedRequester(config, { username: "bob", groups: ["system:masters"] }, undefined)).toBe(
      true,
    );
    expect(
      isExcludedRequester(config, { username: "bob" }, { roles: [], clusterRoles: ["cluster-admin"] }),
    ).toBe(true);
    expect(isExcludedRequester(config, { username: "bob" }, undefined)).toBe(false);
  });

  it("reads generateSuccessEvents as upstream (Go booleans, default false) and names a bad value", () => {
    expect(parseKyvernoConfig({}).config.generateSuccessEvents).toBeUndefined();
    expect(parseKyvernoConfig({ generateSuccessEvents: "true" }).config.generateSuccessEvents).toBe(true);
    expect(
      parseKyvernoConfig({ generateSuccessEvents: "False" }).config.generateSuccessEvents,
    ).toBeUndefined();
    expect(parseKyvernoConfig({ generateSuccessEvents: "yes" })).toMatchObject({
      config: { resourceFilters: [] },
      problems: ['generateSuccessEvents: "yes" is not a boolean (true or false); success events stay off'],
    });
  });

  it("reports a webhooks value that is not JSON", () => {
    const { config, problems } = parseKyvernoConfig({ webhooks: "[{" });
    expect(config.webhooks).toBeUndefined();
    expect(problems[0]).toMatch(/^webhooks: not valid JSON/);
  });
});
