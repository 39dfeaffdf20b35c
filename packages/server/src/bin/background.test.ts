import { describe, expect, it } from "vitest";
import { systemClock } from "../clock.js";
import { parseBackgroundArgs, runBackgroundCommand } from "./background.js";
import { openControllerLog } from "./controller-start.js";

function buffer() {
  let text = "";
  return {
    write: (s: string) => {
      text += s;
    },
    get text() {
      return text;
    },
  };
}

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

describe("kyverno-ts background logs", () => {
  // A kubeconfig that does not exist stops the command right after the flag warnings are logged.
  const run = async (flags: string[]) => {
    const stderr = buffer();
    const args = [...flags, "--enableTracing=true", "--kubeconfig=/nonexistent/kubeconfig"];
    expect(await runBackgroundCommand({ args, stdout: buffer(), stderr })).toBe(1);
    return stderr.text.split("\n").filter((line) => line.includes("--enableTracing"));
  };

  it("writes upstream's text lines with --loggingFormat=text (the default) and JSON with --loggingFormat=json", async () => {
    for (const flags of [["--loggingFormat=text"], []]) {
      const [line] = await run(flags);
      expect(line).toMatch(
        /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\tWARN\tbackground-controller\t--enableTracing=true /,
      );
    }
    const [json] = await run(["--loggingFormat=json"]);
    expect(JSON.parse(json ?? "")).toMatchObject({ level: "warn", logger: "background-controller" });
  });

  it("adds debug lines from -v=4, and --log-level=error drops the warnings", async () => {
    const debugLines = (argv: string[]) => {
      const parsed = parseBackgroundArgs(argv, {});
      if (!parsed.ok) throw new Error(parsed.message);
      const stderr = buffer();
      const logger = openControllerLog({
        name: "background-controller",
        log: parsed.args.log,
        stderr,
        clock: systemClock(),
        warnings: [],
      });
      logger.debug({}, "a debug line");
      return stderr.text;
    };
    expect(debugLines([])).toBe("");
    expect(debugLines(["-v=4"])).toContain("\tLEVEL(-4)\tbackground-controller\ta debug line");
    expect(await run(["--log-level=error"])).toEqual([]);
  });
});
