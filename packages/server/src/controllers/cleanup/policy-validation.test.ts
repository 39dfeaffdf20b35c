import type { KubeObject } from "@kyverno-ts/api";
import { createEngine } from "@kyverno-ts/engine";
import { describe, expect, it } from "vitest";
import { validateCleanupPolicy } from "./policy-validation.js";

const engine = createEngine({});
const policy = (spec: Record<string, unknown>, kind = "ClusterCleanupPolicy", namespace?: string) =>
  ({
    apiVersion: "kyverno.io/v2",
    kind,
    metadata: { name: "clean", ...(namespace ? { namespace } : {}) },
    spec,
  }) as KubeObject;
const pods = { any: [{ resources: { kinds: ["Pod"] } }] };

describe("validateCleanupPolicy", () => {
  it("accepts upstream's example", async () => {
    const spec = {
      match: {
        any: [{ resources: { kinds: ["Deployment"], selector: { matchLabels: { canremove: "true" } } } }],
      },
      conditions: { any: [{ key: "{{ target.spec.replicas }}", operator: "LessThan", value: 2 }] },
      schedule: "*/5 * * * *",
      deletionPropagationPolicy: "Foreground",
    };
    expect(await validateCleanupPolicy(policy(spec), { engine })).toEqual([]);
  });

  it("names the field path of an invalid schedule, as upstream words it", async () => {
    expect(
      await validateCleanupPolicy(policy({ match: pods, schedule: "every minute" }), { engine }),
    ).toEqual([
      'spec.schedule: Invalid value: "every minute": schedule spec in the cleanupPolicy is not in proper cron format',
    ]);
    expect(
      await validateCleanupPolicy(policy({ match: pods, schedule: "*/2 * * * * *" }), { engine }),
    ).toHaveLength(1);
  });

  it("names the field path of invalid match, exclude and conditions", async () => {
    const problems = await validateCleanupPolicy(
      policy({
        match: {
          any: [{ resources: { kinds: ["Pod"] }, subjects: [{ kind: "User", name: "x" }] }],
          all: pods.any,
        },
        exclude: { any: [{ resources: { kindz: ["Pod"] } }] },
        conditions: { any: [{ key: "a", operator: "Bigger", value: 1 }] },
        schedule: "@hourly",
      }),
      { engine },
    );
    expect(problems).toContain("spec.match: Invalid value: Can't specify any and all together");
    expect(problems.some((p) => p.startsWith("spec.match.any[0].subjects: Forbidden"))).toBe(true);
    expect(problems.some((p) => p.startsWith("spec.exclude.any[0].resources"))).toBe(true);
    expect(problems.some((p) => p.startsWith("spec.conditions.any[0].operator"))).toBe(true);
  });

  it("keeps a namespaced CleanupPolicy in its namespace", async () => {
    const problems = await validateCleanupPolicy(
      policy(
        { match: { any: [{ resources: { kinds: ["Namespace"], namespaces: ["a"] } }] }, schedule: "@daily" },
        "CleanupPolicy",
        "team",
      ),
      { engine },
    );
    expect(problems).toEqual([
      "spec.match.any[0].resources.kinds[0]: Forbidden: cluster-scoped kind Namespace not allowed in a namespaced CleanupPolicy",
      "spec.match.any[0].resources.namespaces: filtering namespaces is not allowed in a namespaced Policy",
    ]);
  });

  it("refuses kinds the controller may not list or delete", async () => {
    const can = async (kind: string, _ns: string, verb: string) => !(kind === "Secret" && verb === "delete");
    const spec = { match: { any: [{ resources: { kinds: ["Pod", "Secret"] } }] }, schedule: "@daily" };
    expect(await validateCleanupPolicy(policy(spec), { engine, can })).toEqual([
      "cleanup controller has no permission to delete kind Secret",
    ]);
  });
});
