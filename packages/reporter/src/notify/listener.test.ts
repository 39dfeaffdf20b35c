import { createManualClock } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import type { IngestEvent } from "../ingest/ingest.js";
import { silentLogger } from "../logger.js";
import { normalized, pod, report, result } from "../testing/fixtures.js";
import { createNotifierListener, toNotifierReport } from "./listener.js";
import type { ReportEvent } from "./types.js";

const web = normalized(
  report({
    name: "pol-web",
    namespace: "team-a",
    scope: pod("web", "team-a"),
    labels: { app: "web" },
    results: [result({ result: "fail", severity: "high", category: "Security" }), result({ rule: "other" })],
  }),
);

describe("notifier listener", () => {
  it("maps normalised reports to the notifier's shape (epoch milliseconds, optional fields left out)", () => {
    const mapped = toNotifierReport(web);
    expect(mapped).toMatchObject({
      id: web.id,
      name: "pol-web",
      namespace: "team-a",
      labels: { app: "web" },
      scope: { apiVersion: "v1", kind: "Pod", name: "web", namespace: "team-a", uid: "uid-team-a-web" },
      creationTimestamp: Date.parse("2026-01-01T00:00:00Z"),
    });
    expect(mapped.results[0]).toEqual({
      id: web.results[0]?.id,
      policy: "require-labels",
      rule: "check",
      result: "fail",
      message: "validation rule 'check' passed.",
      severity: "high",
      category: "Security",
      source: "kyverno",
      scored: true,
      timestamp: 1767225600 * 1000,
      resource: { apiVersion: "v1", kind: "Pod", name: "web", namespace: "team-a", uid: "uid-team-a-web" },
      properties: {},
    });
    expect(mapped.results[1]).not.toHaveProperty("severity");
    const cluster = toNotifierReport(normalized(report({ name: "c", results: [result()] })));
    expect(cluster).not.toHaveProperty("namespace");
  });

  it("retries an event whose cache claim failed, then gives up with a report", async () => {
    const clock = createManualClock();
    const seen: ReportEvent[] = [];
    let failures = 4;
    const gaveUp: string[] = [];
    const listener = createNotifierListener({
      clock,
      logger: silentLogger,
      attempts: 3,
      backoffMs: 100,
      onGiveUp: (id) => gaveUp.push(id),
      notifier: {
        handle: async (event) => {
          seen.push(event);
          if (failures-- > 0) throw new Error("redis down");
          return { newResults: 0, resolved: 0 };
        },
      },
    });
    const run = async (event: IngestEvent) => {
      const done = Promise.resolve(listener.handle(event));
      for (let i = 0; i < 5; i++) {
        await Promise.resolve();
        await new Promise((r) => setImmediate(r));
        clock.advance(1000);
      }
      await done;
    };
    await run({ type: "added", report: web });
    expect(seen).toHaveLength(3);
    expect(gaveUp).toEqual([web.id]);
    await run({ type: "deleted", reportId: web.id });
    expect(seen.slice(3)).toEqual([
      { type: "deleted", report: { id: web.id } },
      { type: "deleted", report: { id: web.id } },
    ]);
    expect(gaveUp).toHaveLength(1);
  });

  it("skips events while inactive", async () => {
    const seen: unknown[] = [];
    const listener = createNotifierListener({
      clock: createManualClock(),
      logger: silentLogger,
      isActive: () => false,
      notifier: {
        handle: async (e) => {
          seen.push(e);
          return { newResults: 0, resolved: 0 };
        },
      },
    });
    await listener.handle({ type: "added", report: web });
    expect(seen).toEqual([]);
  });

  it("logs an unreachable cache once, not three lines per report event, and sums the rest up per 30 s", async () => {
    const clock = createManualClock();
    const lines: string[] = [];
    const record = (_f: unknown, m: string) => lines.push(m);
    const listener = createNotifierListener({
      clock,
      logger: { debug() {}, info: record, warn: record, error: record },
      attempts: 3,
      backoffMs: 0,
      notifier: {
        handle: async () => {
          throw new Error("connect ECONNREFUSED");
        },
      },
    });
    for (let i = 0; i < 1000; i++) {
      const handled = listener.handle({ type: "added", report: web });
      // The two retries wait 0 ms each on the clock.
      for (let wait = 0; wait < 2; wait++) {
        await new Promise((resolve) => setImmediate(resolve));
        clock.advance(0);
      }
      await handled;
    }
    expect(lines).toEqual([
      "seen-results cache failed; retrying the event",
      "notification of a report event given up",
    ]);
    clock.advance(30_000);
    expect(lines.slice(2).sort()).toEqual([
      "gave up notifying 999 report events in the last 30 s (connect ECONNREFUSED)",
      "seen-results cache failed 1,999 more times in the last 30 s; events retried (connect ECONNREFUSED)",
    ]);
  });
});
