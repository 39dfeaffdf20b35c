import { describe, expect, it } from "vitest";
import { defaultKyvernoConfig, parseResourceFilters } from "../admission/filters.js";
import { kindFilteredEverywhere } from "./filtered-kinds.js";

describe("kindFilteredEverywhere", () => {
  it("covers the kinds the chart's default filters leave out in every namespace", () => {
    const config = defaultKyvernoConfig();
    expect(kindFilteredEverywhere(config, "Event")).toBe(true);
    expect(kindFilteredEverywhere(config, "ReplicaSet")).toBe(true);
    expect(kindFilteredEverywhere(config, "Pod")).toBe(false);
    expect(kindFilteredEverywhere(config, "Deployment")).toBe(false);
  });

  it("does not cover a kind filtered only in some namespaces, for some names, versions or subresources", () => {
    const filters = (text: string) => ({ resourceFilters: parseResourceFilters(text) });
    expect(kindFilteredEverywhere(filters("[Pod,kube-system,*]"), "Pod")).toBe(false);
    expect(kindFilteredEverywhere(filters("[Pod,*,web-*]"), "Pod")).toBe(false);
    expect(kindFilteredEverywhere(filters("[apps/v1/Deployment,*,*]"), "Deployment")).toBe(false);
    expect(kindFilteredEverywhere(filters("[Pod/exec,*,*]"), "Pod")).toBe(false);
    expect(kindFilteredEverywhere(filters("[Pod*,*,*]"), "PodTemplate")).toBe(true);
    expect(kindFilteredEverywhere(filters("[*/*,*,*]"), "Pod")).toBe(true);
  });
});
