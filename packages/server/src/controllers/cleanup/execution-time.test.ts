import type { KubeObject } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { executionDecision, executionTimeText } from "./execution-time.js";

const policy = (schedule: string, lastExecutionTime?: string): KubeObject => ({
  apiVersion: "kyverno.io/v2",
  kind: "ClusterCleanupPolicy",
  metadata: { name: "p", creationTimestamp: "2026-01-01T00:00:30Z" },
  spec: { schedule, match: { any: [{ resources: { kinds: ["Pod"] } }] } },
  ...(lastExecutionTime ? { status: { lastExecutionTime } } : {}),
});
const t = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe("executionDecision (upstream's GetExecutionTime)", () => {
  it("waits for the first occurrence after the creation time", () => {
    const d = executionDecision(policy("*/5 * * * *"), t("2026-01-01T00:01:00Z"));
    expect(d.type === "wait" && iso(d.at)).toBe("2026-01-01T00:05:00.000Z");
  });

  it("runs once the occurrence has come, and names the one after", () => {
    const d = executionDecision(policy("*/5 * * * *"), t("2026-01-01T00:05:00Z"));
    expect(d.type).toBe("run");
    if (d.type !== "run") return;
    expect(iso(d.executionTime)).toBe("2026-01-01T00:05:00.000Z");
    expect(iso(d.next as number)).toBe("2026-01-01T00:10:00.000Z");
    expect(executionTimeText(d.executionTime)).toBe("2026-01-01T00:05:00Z");
  });

  it("counts from status.lastExecutionTime once the policy has run", () => {
    const d = executionDecision(policy("*/5 * * * *", "2026-01-01T00:05:00Z"), t("2026-01-01T00:07:00Z"));
    expect(d.type === "wait" && iso(d.at)).toBe("2026-01-01T00:10:00.000Z");
  });

  it("runs once for occurrences missed while down, recording the latest", () => {
    const d = executionDecision(policy("@every 2s", "2026-01-01T00:00:00Z"), t("2026-01-01T01:00:01Z"));
    expect(d.type === "run" && [iso(d.executionTime), iso(d.next as number)]).toEqual([
      "2026-01-01T01:00:00.000Z",
      "2026-01-01T01:00:02.000Z",
    ]);
  });

  it("reports an unusable schedule instead of running", () => {
    const d = executionDecision(policy("every minute"), t("2026-01-01T00:05:00Z"));
    expect(d).toEqual({
      type: "invalid",
      message: 'spec.schedule "every minute": expected exactly 5 fields, found 2: [every minute]',
    });
  });
});
