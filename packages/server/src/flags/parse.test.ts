import { describe, expect, it } from "vitest";
import { type FlagParse, type ParsedFlags, parseFlags } from "./parse.js";

const ok = (parsed: FlagParse): ParsedFlags => {
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.flags;
};
const admission = (argv: string[], env: Record<string, string> = {}) =>
  ok(parseFlags("admission", argv, env));
const error = (argv: string[]) => {
  const parsed = parseFlags("admission", argv, {});
  return parsed.ok ? "parsed" : parsed.message;
};

describe("Go flag syntax", () => {
  it("takes one or two dashes, with = or the next argument", () => {
    for (const argv of [
      ["-webhookTimeout=20"],
      ["--webhookTimeout=20"],
      ["-webhookTimeout", "20"],
      ["--webhookTimeout", "20"],
    ])
      expect(admission(argv).int("webhookTimeout")).toBe(20);
  });

  it("sets booleans with --flag or --flag=<Go bool>, never with a separate value", () => {
    expect(admission(["--dumpPayload"]).bool("dumpPayload")).toBe(true);
    expect(admission(["-dumpPayload"]).bool("dumpPayload")).toBe(true);
    for (const [text, value] of [
      ["true", true],
      ["1", true],
      ["T", true],
      ["False", false],
      ["0", false],
      ["f", false],
    ] as const)
      expect(admission([`--autoUpdateWebhooks=${text}`]).bool("autoUpdateWebhooks")).toBe(value);
    expect(error(["--dumpPayload", "false"])).toBe(
      "-dumpPayload is a boolean flag: write --dumpPayload=false",
    );
    expect(error(["--dumpPayload=no"])).toBe('invalid boolean value "no" for -dumpPayload: parse error');
  });

  it("keeps the last value of a repeated flag, and every value of a repeatable one", () => {
    expect(admission(["-v=2", "-v", "5"]).int("v")).toBe(5);
    expect(admission(["--san", "a", "--san=b"]).list("san")).toEqual(["a", "b"]);
  });

  it("falls back to the environment, then to upstream's default", () => {
    expect(admission([]).string("namespace")).toBe("kyverno");
    expect(admission([], { KYVERNO_NAMESPACE: "security" }).string("namespace")).toBe("security");
    expect(admission(["--namespace=x"], { KYVERNO_NAMESPACE: "security" }).string("namespace")).toBe("x");
    expect(admission([]).int("v")).toBe(2);
    expect(admission([]).string("loggingFormat")).toBe("text");
    expect(admission([]).durationMs("leaderElectionRetryPeriod")).toBe(2000);
    expect(admission([]).given("v")).toBe(false);
  });

  it("checks values against the flag's type with Go's wording", () => {
    expect(error(["--webhookTimeout=ten"])).toBe(
      'invalid value "ten" for flag -webhookTimeout: parse error (expected an integer)',
    );
    expect(error(["--leaderElectionRetryPeriod=2"])).toBe(
      'invalid value "2" for flag -leaderElectionRetryPeriod: not a Go duration (e.g. 30s, 10m, 1h)',
    );
    expect(error(["--clientRateLimitQPS=fast"])).toMatch(/invalid value "fast" for flag -clientRateLimitQPS/);
    expect(error(["--kubeconfig"])).toBe("flag needs an argument: -kubeconfig");
    expect(error(["--nope=1"])).toBe("flag provided but not defined: -nope");
    expect(error(["---v=1"])).toBe("bad flag syntax: ---v=1");
    expect(error(["stray"])).toBe('unexpected argument "stray"');
  });

  it("recognises -h, -help and --help", () => {
    for (const flag of ["-h", "--h", "-help", "--help"]) expect(admission([flag]).help).toBe(true);
    expect(admission([]).help).toBe(false);
  });
});
