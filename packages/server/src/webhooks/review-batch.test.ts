import { describe, expect, it } from "vitest";
import type { WebhookRoute } from "../controllers/admission/handler.js";
import type { HandlerReply } from "../controllers/admission/review.js";
import { type BatchAnswer, createReviewBatch } from "./review-batch.js";

const ROUTE: WebhookRoute = { type: "validate", failurePolicy: "Fail" };

/**
 * A handler that logs each evaluation and answers with the body it was given; evaluating a body
 * advances the clock by `costs[body]` ms (0 when not given).
 */
function setup(options: { maxBatch?: number; throwOn?: string; costs?: Record<string, number> } = {}) {
  const events: string[] = [];
  const turns: Array<() => void> = [];
  let now = 0;
  const batch = createReviewBatch({
    handler: {
      handleBody(_route, body, opts) {
        events.push(`evaluate ${body} at ${opts?.receivedAt}`);
        now += options.costs?.[body] ?? 0;
        if (body === options.throwOn) throw new Error("handler bug");
        return { statusCode: 200, body: { review: body } } as unknown as HandlerReply;
      },
    },
    ...(options.maxBatch !== undefined ? { maxBatch: options.maxBatch } : {}),
    schedule: (run) => turns.push(run),
    clock: { monotonic: () => now },
    holdMs: 1,
  });
  const answers = new Map<string, BatchAnswer>();
  const submit = (body: string, receivedAt = 1) =>
    batch.submit(ROUTE, body, receivedAt, (answer) => {
      events.push(`answer ${body}`);
      answers.set(body, answer);
    });
  /** Runs the next scheduled turn. */
  const turn = () => (turns.shift() ?? (() => expect.fail("nothing scheduled")))();
  return { events, turns, answers, submit, turn };
}

describe("review batch", () => {
  it("evaluates the reviews of one turn after it, in arrival order, and answers them together", () => {
    const { events, answers, submit, turn, turns } = setup();
    submit("a", 10);
    submit("b", 11);
    submit("c", 12);
    expect(events).toEqual([]); // never evaluated or answered inside submit
    expect(turns).toHaveLength(1);
    turn();
    expect(events).toEqual([
      "evaluate a at 10",
      "evaluate b at 11",
      "evaluate c at 12",
      "answer a",
      "answer b",
      "answer c",
    ]);
    expect(answers.get("b")).toEqual({ statusCode: 200, body: { review: "b" } });
    expect(turns).toHaveLength(0);
  });

  it("writes the held answers before the next review once the first has waited holdMs", () => {
    // b takes 0.6 ms, c 0.5 ms: a has waited 1.1 ms when d comes, so a, b and c are written first.
    const { events, submit, turn } = setup({ costs: { b: 0.6, c: 0.5, d: 3 } });
    for (const body of ["a", "b", "c", "d", "e"]) submit(body);
    turn();
    expect(events).toEqual([
      "evaluate a at 1",
      "evaluate b at 1",
      "evaluate c at 1",
      "answer a",
      "answer b",
      "answer c",
      "evaluate d at 1",
      "evaluate e at 1", // d's answer waits from when d was decided
      "answer d",
      "answer e",
    ]);
  });

  it("answers a review that arrives alone on the next turn, and schedules again for later ones", () => {
    const { events, submit, turn, turns } = setup();
    submit("a");
    turn();
    expect(events).toEqual(["evaluate a at 1", "answer a"]);
    submit("b");
    expect(turns).toHaveLength(1);
    turn();
    expect(events.slice(2)).toEqual(["evaluate b at 1", "answer b"]);
  });

  it("answers at most maxBatch reviews per turn and leaves the rest to the next one", () => {
    const { events, submit, turn, turns } = setup({ maxBatch: 2 });
    for (const body of ["a", "b", "c", "d", "e"]) submit(body);
    turn();
    expect(events).toEqual(["evaluate a at 1", "evaluate b at 1", "answer a", "answer b"]);
    submit("f");
    expect(turns).toHaveLength(1); // the leftovers' turn also takes the late arrival
    turn();
    turn();
    expect(turns).toHaveLength(0);
    expect(events.filter((e) => e.startsWith("answer"))).toEqual([
      "answer a",
      "answer b",
      "answer c",
      "answer d",
      "answer e",
      "answer f",
    ]);
  });

  it("fails only the review whose evaluation threw", async () => {
    const { answers, submit, turn } = setup({ throwOn: "b" });
    submit("a");
    submit("b");
    submit("c");
    turn();
    expect(answers.get("a")).toEqual({ statusCode: 200, body: { review: "a" } });
    expect(answers.get("c")).toEqual({ statusCode: 200, body: { review: "c" } });
    await expect(answers.get("b")).rejects.toThrow("handler bug");
  });
});
