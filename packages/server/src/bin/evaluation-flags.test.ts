import { DEFAULT_EVALUATION_LIMITS } from "@kyverno-ts/engine";
import { describe, expect, it } from "vitest";
import { FLAGS } from "../flags/catalog.js";
import { parseAdmissionArgs } from "./args.js";
import { parseReportsArgs } from "./reports.js";

const admission = (argv: string[]) => parseAdmissionArgs(argv, {});

describe("evaluation budget flags", () => {
  it("default to the engine's limits, documented as such in the flag table", () => {
    const defaults = Object.fromEntries(FLAGS.map((f) => [f.name, f.default]));
    expect(Number(defaults.evaluationForeachElements)).toBe(DEFAULT_EVALUATION_LIMITS.foreachElements);
    expect(Number(defaults.evaluationPatternNodes)).toBe(DEFAULT_EVALUATION_LIMITS.patternNodes);
    expect(Number(defaults.evaluationJMESPathSteps)).toBe(DEFAULT_EVALUATION_LIMITS.jmespathSteps);
    expect(Number(defaults.evaluationCELCost)).toBe(DEFAULT_EVALUATION_LIMITS.celCost);
    const parsed = admission([]);
    expect(parsed.ok && parsed.args.evaluationLimits).toEqual({});
    expect(parsed.ok && parsed.args.evaluationInlineMs).toBe(5);
  });

  it("pass the given budgets and inline time to the admission controller", () => {
    const parsed = admission([
      "--evaluationForeachElements=5000",
      "--evaluationPatternNodes=7",
      "--evaluationJMESPathSteps",
      "9",
      "--evaluationCELCost=200000",
      "--evaluationInlineTime=0s",
    ]);
    if (!parsed.ok) throw new Error(parsed.message);
    expect(parsed.args.evaluationLimits).toEqual({
      foreachElements: 5000,
      patternNodes: 7,
      jmespathSteps: 9,
      celCost: 200000,
    });
    expect(parsed.args.evaluationInlineMs).toBe(0);
  });

  it("refuse a budget below 1 or an inline time over 1s with a message naming the flag", () => {
    expect(admission(["--evaluationForeachElements=0"])).toEqual({
      ok: false,
      message: "--evaluationForeachElements must be a whole number from 1 to 1000000000000, got 0",
    });
    const cost = admission(["--evaluationCELCost=-3"]);
    expect(cost.ok === false && cost.message).toContain("--evaluationCELCost must be a whole number");
    const inline = admission(["--evaluationInlineTime=2s"]);
    expect(inline.ok === false && inline.message).toContain("--evaluationInlineTime must be at most 1000ms");
  });

  it("give the reports controller the classic budgets, not the admission-only ones", () => {
    const parsed = parseReportsArgs(["--evaluationForeachElements=300"], {});
    if (!parsed.ok) throw new Error(parsed.message);
    expect(parsed.args.evaluationLimits).toEqual({ foreachElements: 300 });
    const refused = parseReportsArgs(["--evaluationCELCost=5"], {});
    expect(refused.ok === false && refused.message).toContain("evaluationCELCost");
    const bad = parseReportsArgs(["--evaluationPatternNodes=0"], {});
    expect(bad.ok === false && bad.message).toContain("--evaluationPatternNodes must be a whole number");
  });
});

describe("--evaluationWorkerScheduling", () => {
  it("defaults to idle, takes nice from the flag or its environment variable, and names the flag when wrong", () => {
    const parsed = admission([]);
    expect(parsed.ok && parsed.args.evaluationWorkerScheduling).toBe("idle");
    const given = admission(["--evaluationWorkerScheduling=nice"]);
    expect(given.ok && given.args.evaluationWorkerScheduling).toBe("nice");
    const fromEnv = parseAdmissionArgs([], { KYVERNO_TS_EVALUATION_WORKER_SCHEDULING: "nice" });
    expect(fromEnv.ok && fromEnv.args.evaluationWorkerScheduling).toBe("nice");
    const wrong = admission(["--evaluationWorkerScheduling=fifo"]);
    expect(wrong).toEqual({
      ok: false,
      message: '--evaluationWorkerScheduling takes idle or nice, got "fifo"',
    });
  });
});
