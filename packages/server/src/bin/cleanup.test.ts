import { describe, expect, it } from "vitest";
import { parseCleanupArgs } from "./cleanup.js";

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
