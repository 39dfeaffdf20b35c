import { describe, expect, it } from "vitest";
import type { WebhookRoute } from "../controllers/admission/handler.js";
import type { HandlerReply } from "../controllers/admission/review.js";
import { type BatchAnswer, createReviewBatch } from "./review-batch.js";

const ROUTE: WebhookRoute = { type: "validate", failurePolicy: "Fail" };

/** A handler that logs each evaluation and answers with the body it was given. */
function setup(options: { maxBatch?: number; throwOn?: string } = {}) {
  const events: string[] = [];
  const turns: Array<() => void> = [];
  const batch = createReviewBatch({
    handler: {
      handleBody(_route, body, opts) {
        events.push(`evaluate ${body} at ${opts?.receivedAt}`);
        if (body === options.throwOn) throw new Error("handler bug");
        return { statusCode: 200, body: { review: body } } as unknown as HandlerReply;
      },
    },
    ...(options.maxBatch !== undefined ? { maxBatch: options.maxBatch } : {}),
    schedule: (run) => turns.push(run),
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
  it("evaluates the reviews of one turn after it, in arrival order, answering each once decided", () => {
    const { events, answers, submit, turn, turns } = setup();
    submit("a", 10);
    submit("b", 11);
    submit("c", 12);
    expect(events).toEqual([]); // never evaluated or answered inside submit
    expect(turns).toHaveLength(1);
    turn();
    // A slow review (c, say) never holds back the answers of the reviews decided before it.
    expect(events).toEqual([
      "evaluate a at 10",
      "answer a",
      "evaluate b at 11",
      "answer b",
      "evaluate c at 12",
      "answer c",
    ]);
    expect(answers.get("b")).toEqual({ statusCode: 200, body: { review: "b" } });
    expect(turns).toHaveLength(0);
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
    expect(events).toEqual(["evaluate a at 1", "answer a", "evaluate b at 1", "answer b"]);
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
