import { readFileSync } from "node:fs";
import { parseDocuments } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { createPolicyCatalog } from "./catalog.js";
import { LAST_APPLIED, policyDetailsOf } from "./details.js";

const bundled = (name: string): Record<string, unknown> => {
  const file = new URL(`../../../../policies/${name}.yaml`, import.meta.url);
  return parseDocuments(readFileSync(file, "utf8"), name).documents[0]?.value as Record<string, unknown>;
};

/** A namespaced Policy as the API server returns it: server fields, a last-applied copy. */
const served = {
  apiVersion: "kyverno.io/v1",
  kind: "Policy",
  metadata: {
    name: "require-team",
    namespace: "shop",
    uid: "uid-1",
    resourceVersion: "42",
    annotations: {
      "policies.kyverno.io/title": "Require a team label",
      "policies.kyverno.io/subject": "Pod, Deployment",
      "policies.kyverno.io/minversion": "1.12.0",
      "kyverno.io/kubernetes-version": "1.30",
      [LAST_APPLIED]: '{"apiVersion":"kyverno.io/v1","kind":"Policy"}',
    },
    managedFields: [{ manager: "kubectl", operation: "Update" }],
  },
  spec: {
    background: false,
    validationFailureAction: "Enforce",
    rules: [
      { name: "check-team", match: {}, validate: { pattern: { metadata: { labels: { team: "?*" } } } } },
      { name: "audit-owner", match: {}, validate: { failureAction: "Audit", deny: {} } },
      { name: "add-default", match: {}, mutate: { patchStrategicMerge: {} } },
      { name: "clone-secret", match: {}, generate: { kind: "Secret" } },
      { name: "signed", match: {}, verifyImages: [] },
      { name: "odd", match: {} },
      { match: {} },
    ],
  },
};

describe("policyDetailsOf", () => {
  it("reads the annotations, settings and rules of a bundled ClusterPolicy", () => {
    const details = policyDetailsOf(bundled("disallow-latest-tag"));
    expect(details).toMatchObject({
      kind: "ClusterPolicy",
      name: "disallow-latest-tag",
      policy: "disallow-latest-tag",
      title: "Disallow Latest Tag",
      category: "Best Practices",
      severity: "medium",
      engine: { name: "Kyverno", subjects: ["Pod"] },
      background: true,
      validationFailureAction: "Audit",
      failureActions: ["Audit"],
      code: { contentType: "text/yaml", truncated: false },
    });
    expect(details?.namespace).toBeUndefined();
    expect(details?.description).toMatch(/^An image without a tag, or with the tag `latest`/);
    expect(details?.rules.map((r) => `${r.name}:${r.type}`)).toEqual([
      "require-image-tag:validate",
      "validate-image-tag:validate",
    ]);
    const back = parseDocuments(details?.code.content ?? "", "x").documents[0]?.value;
    expect(back).toEqual(bundled("disallow-latest-tag"));
  });

  it("quotes strings a YAML 1.1 reader (kubectl) would take for booleans or numbers", () => {
    const policy = {
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      metadata: { name: "p", labels: { enabled: "yes", mode: "on", octal: "0755", date: "2024-01-01" } },
      spec: { rules: [] },
    };
    const yaml = policyDetailsOf(policy)?.code.content ?? "";
    expect(parseDocuments(yaml, "x").documents[0]?.value).toEqual(policy);
  });

  it("names a Policy namespace/name, types every rule and strips server bookkeeping from the YAML", () => {
    const details = policyDetailsOf(served);
    expect(details).toMatchObject({
      kind: "Policy",
      name: "require-team",
      namespace: "shop",
      policy: "shop/require-team",
      title: "Require a team label",
      engine: {
        name: "Kyverno",
        version: "1.12.0",
        kubernetesVersion: "1.30",
        subjects: ["Pod", "Deployment"],
      },
      background: false,
      validationFailureAction: "Enforce",
      failureActions: ["Audit", "Enforce"],
      rules: [
        { name: "check-team", type: "validate", failureAction: "Enforce" },
        { name: "audit-owner", type: "validate", failureAction: "Audit" },
        { name: "add-default", type: "mutate" },
        { name: "clone-secret", type: "generate" },
        { name: "signed", type: "verifyImages" },
        { name: "odd", type: "other" },
      ],
    });
    expect(details?.category).toBeUndefined();
    expect(details?.severity).toBeUndefined();
    const yaml = details?.code.content ?? "";
    expect(yaml).not.toContain("managedFields");
    expect(yaml).not.toContain(LAST_APPLIED);
    expect(yaml).toContain('resourceVersion: "42"');
    expect(
      yaml.startsWith("apiVersion: kyverno.io/v1\nkind: Policy\nmetadata:\n  name: require-team\n"),
    ).toBe(true);
    // The input object is not changed.
    expect(served.metadata.managedFields).toHaveLength(1);
  });

  it("drops an annotations map left empty and cuts a YAML beyond the limit at a line", () => {
    const only = {
      ...served,
      metadata: { name: "p", namespace: "a", annotations: { [LAST_APPLIED]: "{}" } },
    };
    expect(policyDetailsOf(only)?.code.content).not.toContain("annotations");
    const small = policyDetailsOf(served, { maxYamlLength: 200 });
    expect(small?.code.truncated).toBe(true);
    expect(small?.code.content.endsWith("\n# … truncated\n")).toBe(true);
    expect(small?.code.content.length).toBeLessThan(240);
  });

  it("ignores objects that are not policies", () => {
    expect(policyDetailsOf({ kind: "Pod", metadata: { name: "x" } })).toBeUndefined();
    expect(policyDetailsOf({ kind: "Policy", metadata: { name: "x" } })).toBeUndefined();
    expect(policyDetailsOf({ kind: "ClusterPolicy", metadata: {} })).toBeUndefined();
    expect(policyDetailsOf("ClusterPolicy")).toBeUndefined();
    expect(policyDetailsOf({ kind: "ClusterPolicy", metadata: { name: "bare" } })).toMatchObject({
      title: "bare",
      background: true,
      validationFailureAction: "Audit",
      rules: [],
      failureActions: [],
    });
  });
});

describe("createPolicyCatalog", () => {
  it("keeps policies by the name results use, bounded, and forgets them by kind", () => {
    const full: string[] = [];
    const catalog = createPolicyCatalog({ maxEntries: 2, onFull: (p) => full.push(p) });
    expect(catalog.watched()).toEqual([]);
    catalog.setWatched(["ClusterPolicy", "Policy"]);
    expect(catalog.upsert(bundled("require-probes"))).toBe("stored");
    expect(catalog.upsert(served)).toBe("stored");
    expect(catalog.upsert({ kind: "Pod", metadata: { name: "x" } })).toBe("ignored");
    expect(catalog.upsert(bundled("require-standard-labels"))).toBe("full");
    expect(full).toEqual(["require-standard-labels"]);
    // Replacing a known policy is not refused.
    expect(catalog.upsert({ ...served, spec: { background: true } })).toBe("stored");
    expect(catalog.get("shop/require-team")?.background).toBe(true);
    expect(catalog.list().map((p) => p.policy)).toEqual(["require-probes", "shop/require-team"]);
    expect(catalog.list()[0]).not.toHaveProperty("code");
    // A ClusterPolicy delete does not remove a Policy and vice versa.
    catalog.remove("ClusterPolicy", "require-team", "shop");
    expect(catalog.size()).toBe(2);
    catalog.remove("Policy", "require-team", "shop");
    expect(catalog.get("shop/require-team")).toBeUndefined();
    expect(catalog.size()).toBe(1);
  });
});
