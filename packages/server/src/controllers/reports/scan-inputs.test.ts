import { createHash } from "node:crypto";
import type { PolicyException } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import type { CachedPolicy } from "../../policycache/policy-cache.js";
import { DEFAULT_REPORT_LIMITS } from "../../reports/report-builder.js";
import { createScanInputs } from "./scan-inputs.js";

/** The fields of a cached policy the digest reads. */
const policy = (name: string, rv: string | undefined, rules: unknown[] = [{ name: "r" }]) =>
  ({
    key: name,
    policy: { metadata: { name, ...(rv === undefined ? {} : { resourceVersion: rv }) }, spec: { rules } },
  }) as unknown as CachedPolicy;

const exception = (name: string, rv: string) =>
  ({ metadata: { name, namespace: "ns", resourceVersion: rv } }) as unknown as PolicyException;

describe("scan inputs", () => {
  const input = { uid: "u1", resourceVersion: "7", namespaceLabels: { b: "2", a: "1" }, reporting: [] };

  it("changes with the resource, a policy, an exception or the namespace's labels, not with label order", () => {
    let exceptions = [exception("e", "1")];
    const inputs = createScanInputs({
      cache: { exceptionsFor: () => exceptions },
      limits: DEFAULT_REPORT_LIMITS,
    });
    const p = policy("p", "10");
    const base = inputs.digest({ ...input, scanned: [p] });
    expect(base).toBeDefined();
    expect(inputs.digest({ ...input, namespaceLabels: { a: "1", b: "2" }, scanned: [p] })).toBe(base);
    expect(inputs.digest({ ...input, resourceVersion: "8", scanned: [p] })).not.toBe(base);
    expect(inputs.digest({ ...input, scanned: [policy("p", "11")] })).not.toBe(base);
    expect(inputs.digest({ ...input, namespaceLabels: { a: "1" }, scanned: [p] })).not.toBe(base);
    expect(inputs.digest({ ...input, scanned: [p], reporting: [policy("m", "3")] })).not.toBe(base);
    exceptions = [exception("e", "2")];
    expect(inputs.digest({ ...input, scanned: [p] })).not.toBe(base);
    const upgraded = createScanInputs({
      cache: { exceptionsFor: () => [exception("e", "1")] },
      limits: DEFAULT_REPORT_LIMITS,
      version: "next",
    });
    expect(upgraded.digest({ ...input, scanned: [p] })).not.toBe(base);
  });

  it("has no digest (always evaluate) when a policy reads more than the resource, or a version is missing", () => {
    const inputs = createScanInputs({ cache: { exceptionsFor: () => [] }, limits: DEFAULT_REPORT_LIMITS });
    const withContext = policy("c", "1", [
      { name: "r", context: [{ name: "cm", configMap: { name: "x" } }] },
    ]);
    const withTime = policy("t", "1", [
      { name: "r", validate: { deny: { conditions: { any: [{ key: "{{ time_now_utc() }}" }] } } } },
    ]);
    expect(inputs.digest({ ...input, scanned: [withContext] })).toBeUndefined();
    expect(inputs.digest({ ...input, scanned: [withTime] })).toBeUndefined();
    expect(inputs.digest({ ...input, scanned: [policy("n", undefined)] })).toBeUndefined();
    expect(
      inputs.digest({ ...input, resourceVersion: undefined, scanned: [policy("p", "1")] }),
    ).toBeUndefined();
  });

  it("is the digest of its parts joined, whether the policies' part was remembered or not", () => {
    let exceptions = [exception("e", "1")];
    const inputs = createScanInputs({
      cache: { exceptionsFor: (p) => (p.key === "p" ? exceptions : []) },
      limits: DEFAULT_REPORT_LIMITS,
      version: "v",
    });
    const scanned = [policy("p", "10"), policy("q", "11")];
    const reporting = [policy("m", "3")];
    const expected = (rv: string, ev: string) =>
      createHash("sha1")
        .update(
          [
            "u1",
            rv,
            `v\u0000${JSON.stringify(DEFAULT_REPORT_LIMITS)}`,
            "s/p@10",
            `ens/e@${ev}`,
            "s/q@11",
            "r/m@3",
            "la=1",
            "lb=2",
          ].join("\u0000"),
        )
        .digest("base64");
    expect(inputs.digest({ ...input, scanned, reporting })).toBe(expected("7", "1"));
    expect(inputs.digest({ ...input, resourceVersion: "9", scanned, reporting })).toBe(expected("9", "1"));
    exceptions = [exception("e", "2")];
    expect(inputs.digest({ ...input, scanned, reporting })).toBe(expected("7", "2"));
    const none = createScanInputs({ cache: { exceptionsFor: () => [] }, limits: DEFAULT_REPORT_LIMITS });
    expect(none.digest({ ...input, namespaceLabels: undefined, scanned: [] })).toBe(
      createHash("sha1")
        .update(["u1", "7", `\u0000${JSON.stringify(DEFAULT_REPORT_LIMITS)}`].join("\u0000"))
        .digest("base64"),
    );
  });
});
