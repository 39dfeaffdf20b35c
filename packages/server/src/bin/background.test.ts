import { describe, expect, it } from "vitest";
import { parseBackgroundArgs } from "./background.js";

describe("kyverno-ts background flags", () => {
  it("takes upstream's --genWorkers and the exception flags", () => {
    const parsed = parseBackgroundArgs(
      ["--genWorkers=3", "--enablePolicyException=true", "--exceptionNamespace=exceptions"],
      {},
    );
    expect(parsed.ok && parsed.args.workers).toBe(3);
    expect(parsed.ok && parsed.args.exceptionNamespaces).toEqual(["exceptions"]);
  });

  it("names the ServiceAccount from KYVERNO_SERVICEACCOUNT_NAME in Kyverno's namespace", () => {
    const parsed = parseBackgroundArgs([], { KYVERNO_NAMESPACE: "kv", KYVERNO_SERVICEACCOUNT_NAME: "bg" });
    expect(parsed.ok && parsed.args.serviceAccount).toBe("system:serviceaccount:kv:bg");
    expect(parsed.ok && parsed.args.workers).toBe(10);
  });

  it("accepts an upstream flag it does not act on, with one warning", () => {
    const parsed = parseBackgroundArgs(["--enableTracing=true"], {});
    expect(parsed.ok).toBe(true);
    expect(parsed.ok && parsed.args.warnings).toHaveLength(1);
    expect(parsed.ok && parsed.args.warnings[0]).toContain("--enableTracing");
  });

  it("rejects an unknown flag and a worker count out of range", () => {
    expect(parseBackgroundArgs(["--noSuchFlag"], {}).ok).toBe(false);
    const zero = parseBackgroundArgs(["--genWorkers=0"], {});
    expect(zero.ok ? "" : zero.message).toContain("--genWorkers must be a whole number from 1 to 1000");
  });
});
