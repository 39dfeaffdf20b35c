import { describe, expect, it } from "vitest";
import { parseAdmissionArgs } from "../bin/args.js";
import { parseReportsArgs } from "../bin/reports.js";
import { DEFAULT_EVENT_SETTINGS, eventSettings } from "./cluster-events.js";

describe("event flags", () => {
  it("default to upstream's: PolicyApplied and PolicySkipped omitted, 1000 queued, 1000 QPS, burst 2000", () => {
    for (const parsed of [parseAdmissionArgs([], {}), parseReportsArgs([], {})]) {
      expect(parsed.ok && parsed.args.events).toEqual({
        omit: ["PolicyApplied", "PolicySkipped"],
        maxQueued: 1000,
        qps: 1000,
        burst: 2000,
      });
      expect(parsed.ok && parsed.args.warnings.filter((w) => w.includes("Events"))).toEqual([]);
    }
  });

  it("reads --omitEvents and --maxQueuedEvents in upstream's spelling, in both binaries", () => {
    const argv = ["--omitEvents=PolicyViolation", "-maxQueuedEvents", "50", "--eventsRateLimitQPS=20"];
    for (const parsed of [parseAdmissionArgs(argv, {}), parseReportsArgs(argv, {})]) {
      expect(parsed.ok && parsed.args.events).toEqual({
        omit: ["PolicyViolation"],
        maxQueued: 50,
        qps: 20,
        burst: 2000,
      });
      expect(parsed.ok && parsed.args.warnings).toEqual([]);
    }
    const all = parseAdmissionArgs(["--omitEvents="], {});
    expect(all.ok && all.args.events.omit).toEqual([]);
  });

  it("refuses an unknown event type or an empty queue, naming the flag", () => {
    expect(parseAdmissionArgs(["--omitEvents=PolicyApplied,Audit"], {})).toEqual({
      ok: false,
      message:
        '--omitEvents: unknown event type "Audit" (accepted: PolicyViolation, PolicyApplied, PolicyError, PolicySkipped)',
    });
    expect(parseReportsArgs(["--maxQueuedEvents=0"], {})).toEqual({
      ok: false,
      message: '--maxQueuedEvents must be a whole number above 0, got "0"',
    });
  });

  it("zero rate limits mean the defaults, as upstream's 'client default if zero'", () => {
    const parsed = eventSettings({
      omitEvents: "",
      maxQueuedEvents: 10,
      eventsRateLimitQPS: 0,
      eventsRateLimitBurst: 0,
    });
    expect(parsed.ok && parsed.settings).toEqual({
      omit: [],
      maxQueued: 10,
      qps: DEFAULT_EVENT_SETTINGS.qps,
      burst: DEFAULT_EVENT_SETTINGS.burst,
    });
  });
});
