import { describe, expect, it } from "vitest";
import { fakeClock } from "../../testing/fixtures.js";
import { createInlineBudget, type InlineAttempt } from "./inline-budget.js";

/**
 * A budget of 5 ms on a fake clock, with a thread CPU clock the test moves: `busy(ms)` stands for
 * this thread computing (clock and CPU time advance), `held(ms)` for the thread descheduled (only the
 * clock advances).
 */
function setup(inlineMs = 5) {
  const clock = fakeClock();
  let cpu = 0;
  let cpuReads = 0;
  const offloads: string[] = [];
  const budget = createInlineBudget({
    clock,
    inlineMs,
    threadCpuMs: () => {
      cpuReads++;
      return cpu;
    },
    onOffload: (reason) => offloads.push(reason),
  });
  const busy = (ms: number) => {
    clock.advance(ms);
    cpu += ms;
  };
  const held = (ms: number) => clock.advance(ms);
  let runs = 0;
  /** A run of policy `key` that takes `ms` on the clock (via `spend`) and is cut or finishes. */
  const run =
    (key: string, ms: number, cut: boolean, spend: (ms: number) => void) => (): InlineAttempt<string> => {
      runs++;
      spend(ms);
      return { result: `${key} done`, cut, policyMs: new Map([[key, ms]]) };
    };
  return { budget, busy, held, run, runs: () => runs, cpuReads: () => cpuReads, offloads };
}

describe("createInlineBudget", () => {
  it("says why each request it leaves to the evaluator went there, and nothing for one it finished", () => {
    const t = setup();
    expect(t.budget.attempt(["p"], 10_000, t.run("p", 1, false, t.busy))).toBe("p done");
    expect(t.offloads).toEqual([]);
    // Cut in both attempts while running (3 ms: an overrun, not yet slow).
    expect(t.budget.attempt(["p"], 10_000, t.run("p", 3, true, t.busy))).toBe(undefined);
    // Too little of the deadline left for an attempt: not even tried.
    expect(t.budget.attempt(["p"], 4, t.run("p", 1, false, t.busy))).toBe(undefined);
    // One policy ran four budgets of CPU: slow at once, then remembered.
    expect(t.budget.attempt(["q"], 10_000, t.run("q", 20, true, t.busy))).toBe(undefined);
    expect(t.budget.attempt(["q"], 10_000, t.run("q", 1, false, t.busy))).toBe(undefined);
    expect(t.offloads).toEqual(["cut", "deadline", "slow_policy", "slow_policy"]);
    const off = setup(0);
    expect(off.budget.attempt(["p"], 10_000, off.run("p", 1, false, off.busy))).toBe(undefined);
    expect(off.offloads).toEqual(["inline_off"]);
  });

  it("uses an evaluation that finished, however long it took on the clock: never evaluated twice", () => {
    const t = setup();
    expect(t.budget.attempt(["p"], 10_000, t.run("p", 40, false, t.held))).toBe("p done");
    expect(t.budget.attempt(["p"], 10_000, t.run("p", 40, false, t.busy))).toBe("p done");
    expect(t.runs()).toBe(2);
  });

  it("tries a cut attempt again, and never marks a policy slow when the thread was descheduled", () => {
    const t = setup();
    for (let i = 0; i < 10; i++)
      expect(t.budget.attempt(["p"], 10_000, t.run("p", 30, true, t.held))).toBe(undefined);
    // Two attempts, and four more that do not count because the thread was held up in them.
    expect(t.runs()).toBe(60);
    expect(t.budget.isSlow(["p"])).toBe(false);
  });

  it("keeps evaluating inline a request whose attempts were cut while the thread was held up", () => {
    const t = setup();
    let n = 0;
    // Cut three times on a busy machine (the thread did not run in those 30 ms), then finished: inline.
    const run = () => (++n <= 3 ? t.run("p", 30, true, t.held)() : t.run("p", 1, false, t.busy)());
    expect(t.budget.attempt(["p"], 10_000, run)).toBe("p done");
    expect(n).toBe(4);
  });

  it("counts an attempt in which the thread computed for half the budget or more", () => {
    const t = setup();
    // 3 ms of CPU in each cut attempt (a policy that needs more than the budget): two attempts only.
    const costly = t.run("p", 3, true, t.busy);
    expect(t.budget.attempt(["p"], 10_000, costly)).toBe(undefined);
    expect(t.runs()).toBe(2);
  });

  it("marks a policy slow after three requests in a row overran on this thread's CPU; a finished one resets the count", () => {
    const t = setup();
    const hostile = t.run("hostile", 6, true, t.busy);
    for (let i = 0; i < 2; i++) expect(t.budget.attempt(["hostile"], 10_000, hostile)).toBe(undefined);
    // The policy finished inline in between (it was only slow while code was compiled): count restarts.
    expect(t.budget.attempt(["hostile"], 10_000, t.run("hostile", 1, false, t.busy))).toBe("hostile done");
    for (let i = 0; i < 2; i++) t.budget.attempt(["hostile"], 10_000, hostile);
    expect(t.budget.isSlow(["hostile"])).toBe(false);
    t.budget.attempt(["hostile"], 10_000, hostile);
    expect(t.budget.isSlow(["hostile", "other"])).toBe(true);
    expect(t.budget.isSlow(["other"])).toBe(false);
    const runs = t.runs();
    expect(t.budget.attempt(["hostile"], 10_000, hostile)).toBe(undefined);
    expect(t.runs()).toBe(runs);
  });

  it("marks a policy slow at once when its cut evaluation used four budgets of this thread's CPU", () => {
    const t = setup();
    expect(t.budget.attempt(["loop"], 10_000, t.run("loop", 25, true, t.busy))).toBe(undefined);
    expect(t.runs()).toBe(1);
    expect(t.budget.isSlow(["loop"])).toBe(true);
  });

  it("reads the thread's CPU time at most once per inline budget", () => {
    const t = setup();
    for (let i = 0; i < 100; i++) t.budget.attempt(["p"], 10_000, t.run("p", 0.01, false, t.busy));
    expect(t.cpuReads()).toBe(1);
  });

  it("leaves a request with too little time left to the evaluator", () => {
    const t = setup();
    expect(t.budget.attempt(["p"], 5, t.run("p", 1, false, t.busy))).toBe(undefined);
    expect(t.runs()).toBe(0);
  });
});
