import { flagsOf } from "@kyverno-ts/server";
import { describe, expect, it } from "vitest";
import { controllerHelp, HelpGroups } from "./controller-help.js";

describe("--help of the controllers", () => {
  it("lists every flag of the controller in commander's layout, grouped by effect", () => {
    const text = controllerHelp("admission", "Runs the admission controller.", flagsOf("admission"));
    expect(text.startsWith("Usage: kyverno-ts admission [flags]\n\nRuns the admission controller.\n")).toBe(
      true,
    );
    for (const f of flagsOf("admission")) expect(text).toMatch(new RegExp(`^\\s+(-v, )?--${f.name}\\b`, "m"));
    const groups = [HelpGroups.upstream, HelpGroups.own, HelpGroups.noEffect].map((h) => text.indexOf(h));
    expect(groups.every((at, i) => at > 0 && (i === 0 || at > (groups[i - 1] as number)))).toBe(true);
    expect(text).toMatch(
      /--webhookTimeout <seconds>\s+Webhook timeout the API server uses, in seconds \(1-30\)\.\s+\(default: 10\)/,
    );
    expect(text).toMatch(/--namespace <ns>\s+.*\(default: KYVERNO_NAMESPACE or\s+"kyverno"\)/s);
    expect(text).toContain("No effect: AdmissionReview payloads are not logged yet.");
    expect(text).not.toMatch(/--backgroundScanWorkers/);
  });
});
