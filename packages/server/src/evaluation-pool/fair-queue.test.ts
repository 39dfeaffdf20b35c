import { describe, expect, it } from "vitest";
import { createFairQueue } from "./fair-queue.js";

describe("createFairQueue", () => {
  it("serves tenants round robin, each in arrival order", () => {
    const q = createFairQueue<string>();
    for (const item of ["a1", "a2", "a3"]) q.push("a", item);
    q.push("b", "b1");
    q.push("c", "c1");
    q.push("b", "b2");
    const order: string[] = [];
    for (let next = q.take(); next !== undefined; next = q.take()) order.push(next.item);
    expect(order).toEqual(["a1", "b1", "c1", "a2", "b2", "a3"]);
    expect(q.size).toBe(0);
  });

  it("skips tenants that are not eligible, keeping their place", () => {
    const q = createFairQueue<string>();
    q.push("busy", "x1");
    q.push("busy", "x2");
    q.push("other", "y1");
    expect(q.take((t) => t !== "busy")?.item).toBe("y1");
    expect(q.take((t) => t !== "busy")).toBeUndefined();
    expect(q.take()?.item).toBe("x1");
    expect(q.size).toBe(1);
  });

  it("removes an item that gave up waiting", () => {
    const q = createFairQueue<string>();
    q.push("a", "a1");
    q.push("a", "a2");
    expect(q.remove("a", "a1")).toBe(true);
    expect(q.remove("a", "a1")).toBe(false);
    expect(q.remove("nobody", "a2")).toBe(false);
    expect(q.take()?.item).toBe("a2");
    expect(q.size).toBe(0);
  });
});
