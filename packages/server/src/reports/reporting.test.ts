import { describe, expect, it } from "vitest";
import { parseBackgroundArgs } from "../bin/background.js";
import { parseReportsArgs } from "../bin/reports.js";
import { type AdmissionResult, createBoundedResultQueue } from "../controllers/admission/results.js";
import { parseEnableReporting, REPORT_ALL, reportedResults } from "./reporting.js";

const result = (phase: AdmissionResult["phase"]): AdmissionResult => ({
  uid: "r",
  timestamp: 0,
  operation: "CREATE",
  resource: { apiVersion: "v1", kind: "ConfigMap", namespace: "a", name: "b", uid: "u" },
  responses: [],
  ...(phase === undefined ? {} : { phase }),
});

describe("--enableReporting", () => {
  it("parses upstream's rule types; empty reports nothing; an unknown type is an error naming the accepted ones", () => {
    const all = parseEnableReporting("validate,mutate,mutateExisting,generate,imageVerify");
    expect(all.ok && [...all.settings].sort()).toEqual([...REPORT_ALL].sort());
    const some = parseEnableReporting(" validate , generate,");
    expect(some.ok && [...some.settings]).toEqual(["validate", "generate"]);
    const none = parseEnableReporting("");
    expect(none.ok && none.settings.size).toBe(0);
    expect(parseEnableReporting("validate,mutation")).toEqual({
      ok: false,
      message:
        '--enableReporting: unknown rule type "mutation" (accepted: validate, mutate, mutateExisting, generate, imageVerify)',
    });
  });

  it("keeps only the results of reported phases in the hand-over queue", () => {
    const parsed = parseEnableReporting("validate,generate");
    if (!parsed.ok) throw new Error(parsed.message);
    const queue = createBoundedResultQueue({ accepts: reportedResults(parsed.settings) });
    for (const phase of [undefined, "mutate", "generate", "mutateExisting"] as const)
      queue.offer(result(phase));
    expect(queue.drain().map((r) => r.phase ?? "validate")).toEqual(["validate", "generate"]);
    const everything = createBoundedResultQueue();
    everything.offer(result("mutate"));
    expect(everything.size).toBe(1);
  });

  it("is read by the background and reports controllers (default: every rule type)", () => {
    const background = parseBackgroundArgs(["--enableReporting=generate"], {});
    expect(background.ok && [...background.args.reporting]).toEqual(["generate"]);
    const reports = parseReportsArgs([], {});
    expect(reports.ok && reports.args.reporting.size).toBe(REPORT_ALL.size);
    expect(parseReportsArgs(["--enableReporting=bogus"], {})).toMatchObject({ ok: false });
  });
});
