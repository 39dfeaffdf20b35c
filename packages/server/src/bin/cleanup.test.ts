import { describe, expect, it } from "vitest";
import { systemClock } from "../clock.js";
import { parseCleanupArgs, runCleanupCommand } from "./cleanup.js";
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

describe("kyverno-ts cleanup flags", () => {
  it("takes upstream's --ttlReconciliationInterval and --cleanupServerPort", () => {
    const parsed = parseCleanupArgs(["--ttlReconciliationInterval=90s", "-cleanupServerPort", "9444"], {});
    expect(parsed.ok && parsed.args.ttlIntervalMs).toBe(90_000);
    expect(parsed.ok && parsed.args.port).toBe(9444);
    expect(parsed.ok && parsed.args.serviceName).toBe("kyverno-cleanup-controller");
  });

  it("accepts an upstream flag it does not act on, with one warning", () => {
    const parsed = parseCleanupArgs(["--protectManagedResources=true"], {});
    expect(parsed.ok).toBe(true);
    expect(parsed.ok && parsed.args.warnings).toHaveLength(1);
  });

  it("rejects a TTL interval under a second and an unknown flag", () => {
    const short = parseCleanupArgs(["--ttlReconciliationInterval=10ms"], {});
    expect(short.ok ? "" : short.message).toContain("--ttlReconciliationInterval must be a Go duration");
    expect(parseCleanupArgs(["--genWorkers=2"], {}).ok).toBe(false);
  });
});

describe("kyverno-ts cleanup logs", () => {
  // A kubeconfig that does not exist stops the command right after the flag warnings are logged.
  const run = async (flags: string[]) => {
    const stderr = buffer();
    const args = [...flags, "--protectManagedResources=true", "--kubeconfig=/nonexistent/kubeconfig"];
    expect(await runCleanupCommand({ args, stdout: buffer(), stderr })).toBe(1);
    return stderr.text.split("\n").filter((line) => line.includes("--protectManagedResources"));
  };

  it("writes upstream's text lines with --loggingFormat=text (the default) and JSON with --loggingFormat=json", async () => {
    for (const flags of [["--loggingFormat=text"], []]) {
      const [line] = await run(flags);
      expect(line).toMatch(
        /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\tWARN\tcleanup-controller\t--protectManagedResources=true /,
      );
    }
    const [json] = await run(["--loggingFormat=json"]);
    expect(JSON.parse(json ?? "")).toMatchObject({ level: "warn", logger: "cleanup-controller" });
  });

  it("adds debug lines from -v=4, and --log-level=error drops the warnings", async () => {
    const debugLines = (argv: string[]) => {
      const parsed = parseCleanupArgs(argv, {});
      if (!parsed.ok) throw new Error(parsed.message);
      const stderr = buffer();
      const logger = openControllerLog({
        name: "cleanup-controller",
        log: parsed.args.log,
        stderr,
        clock: systemClock(),
        warnings: [],
      });
      logger.debug({}, "a debug line");
      return stderr.text;
    };
    expect(debugLines([])).toBe("");
    expect(debugLines(["-v=4"])).toContain("\tLEVEL(-4)\tcleanup-controller\ta debug line");
    expect(await run(["--log-level=error"])).toEqual([]);
  });
});
