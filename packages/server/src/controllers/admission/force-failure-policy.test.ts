import { type CelPolicy, type JsonValue, loadCelPolicy } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { parseAdmissionArgs } from "../../bin/args.js";
import { celPolicyKey } from "../../policycache/cel-policy-store.js";
import { fakeClock, pod, podValidatePolicy, recordingLogger, review } from "../../testing/fixtures.js";
import { createAdmissionCore } from "./admission-core.js";
import type { CelWebhookRoute } from "./cel-handler.js";
import { defaultKyvernoConfig } from "./filters.js";
import type { WebhookRoute } from "./handler.js";

/** A Fail policy whose rule errors at evaluation (a division by zero). */
const erroring = podValidatePolicy({
  name: "broken",
  failurePolicy: "Fail",
  deny: { conditions: { any: [{ key: "{{ divide(`1`, `0`) }}", operator: "Equals", value: "x" }] } },
});

/** A Fail ValidatingPolicy whose expression errors at evaluation (a missing key). */
function erroringCel(): CelPolicy {
  const loaded = loadCelPolicy(
    {
      apiVersion: "policies.kyverno.io/v1",
      kind: "ValidatingPolicy",
      metadata: { name: "broken-cel" },
      spec: {
        failurePolicy: "Fail",
        validationActions: ["Deny"],
        matchConstraints: {
          resourceRules: [
            { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] },
          ],
        },
        validations: [{ expression: "object.metadata.annotations['missing'] == 'x'", message: "m" }],
      },
    } as JsonValue,
    { file: "test" },
  );
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return loaded.value;
}

function core(forceFailurePolicyIgnore: boolean) {
  const c = createAdmissionCore({
    config: defaultKyvernoConfig,
    clock: fakeClock(),
    logger: recordingLogger(),
    evaluation: { workers: 0, forceFailurePolicyIgnore },
  });
  c.cache.set(erroring);
  c.celPolicies.set(erroringCel());
  const call = (route: WebhookRoute) => {
    const reply = c.handler.handleBody(route, JSON.stringify(review({ object: pod({ name: "web" }) })));
    return (reply as { body: { response: { allowed: boolean; warnings?: string[] } } }).body.response;
  };
  const callCel = (route: CelWebhookRoute) => {
    const reply = c.celHandler.handleBody(route, JSON.stringify(review({ object: pod({ name: "web" }) })));
    return (reply as { body: { response: { allowed: boolean; warnings?: string[] } } }).body.response;
  };
  return { c, call, callCel };
}

describe("--forceFailurePolicyIgnore", () => {
  it("is off by default, as upstream: a Fail policy whose rule errors denies", () => {
    const parsed = parseAdmissionArgs(["--standalone"]);
    expect(parsed.ok && parsed.args.forceFailurePolicyIgnore).toBe(false);
    const { c, call, callCel } = core(false);
    expect(c.cache.get("broken")?.failurePolicy).toBe("Fail");
    expect(call({ type: "validate", failurePolicy: "Fail" }).allowed).toBe(false);
    expect(callCel({ type: "validate", failurePolicy: "Fail" }).allowed).toBe(false);
  });

  it("serves every policy as Ignore: errors admit the request with a warning, on the ignore webhooks", () => {
    const parsed = parseAdmissionArgs(["--standalone", "--forceFailurePolicyIgnore"]);
    expect(parsed.ok && parsed.args.forceFailurePolicyIgnore).toBe(true);
    const { c, call, callCel } = core(true);
    expect(c.cache.get("broken")?.failurePolicy).toBe("Ignore");
    // The stored policy is the user's, unchanged.
    expect(c.cache.get("broken")?.policy.spec.failurePolicy).toBe("Fail");
    // The Fail webhook no longer carries it; the Ignore webhook admits despite the error.
    expect(call({ type: "validate", failurePolicy: "Fail" }).allowed).toBe(true);
    expect(call({ type: "validate", failurePolicy: "Ignore" }).allowed).toBe(true);
    const cel = c.celPolicies.get(celPolicyKey({ kind: "ValidatingPolicy", name: "broken-cel" }));
    expect(cel?.failurePolicy).toBe("Ignore");
    const answer = callCel({ type: "validate", failurePolicy: "Ignore" });
    expect(answer.allowed).toBe(true);
  });
});
