import { createManualClock } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { createLogAggregator } from "./log-aggregator.js";
import type { Logger } from "./logger.js";

function recorder(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const push = (level: string) => (_f: unknown, m: string) => lines.push(`${level} ${m}`);
  return {
    lines,
    logger: { debug: push("debug"), info: push("info"), warn: push("warn"), error: push("error") },
  };
}

describe("log aggregator", () => {
  const dropped = (target: string) => ({
    key: `${target}\u0000dropped`,
    level: "warn" as const,
    fields: { target },
    message: `notification dropped: connect ECONNREFUSED`,
    summary: (n: string, s: number) => `dropped ${n} notifications to ${target} in the last ${s} s`,
  });

  it("logs the first event, then one summary per window while the events go on, then the next at once", () => {
    const { logger, lines } = recorder();
    const clock = createManualClock();
    const log = createLogAggregator({ logger, clock, windowMs: 30_000 });
    for (let i = 0; i < 5001; i++) log.log(dropped("slack"));
    log.log(dropped("loki"));
    expect(lines).toEqual([
      "warn notification dropped: connect ECONNREFUSED",
      "warn notification dropped: connect ECONNREFUSED",
    ]);
    clock.advance(30_000);
    expect(lines.slice(2)).toEqual(["warn dropped 5,000 notifications to slack in the last 30 s"]);
    for (let i = 0; i < 10; i++) log.log({ ...dropped("slack"), count: 3 });
    clock.advance(30_000);
    expect(lines.slice(3)).toEqual(["warn dropped 30 notifications to slack in the last 30 s"]);
    clock.advance(30_000); // a quiet window ends it
    log.log(dropped("slack"));
    expect(lines.slice(4)).toEqual(["warn notification dropped: connect ECONNREFUSED"]);
    log.log(dropped("slack"));
    log.flush();
    expect(lines.slice(5)).toEqual(["warn dropped 1 notifications to slack in the last 30 s"]);
    expect(clock.pending()).toBe(0);
  });
});
