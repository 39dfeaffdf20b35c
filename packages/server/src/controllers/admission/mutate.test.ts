import type { JsonValue } from "@kyverno-ts/api";
import { applyJson6902, createEngine } from "@kyverno-ts/engine";
import { describe, expect, it } from "vitest";
import { createPolicyCache } from "../../policycache/policy-cache.js";
import { fakeClock, immediate, pod, policy, recordingLogger, review } from "../../testing/fixtures.js";
import { defaultKyvernoConfig } from "./filters.js";
import { createAdmissionHandler, type WebhookRoute } from "./handler.js";

const MUTATE_FAIL: WebhookRoute = { type: "mutate", failurePolicy: "Fail" };

function mutatePolicy(
  name: string,
  patch: JsonValue,
  options: { emitWarning?: boolean; failurePolicy?: "Ignore"; context?: JsonValue[] } = {},
) {
  return policy({
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name },
    spec: {
      ...(options.emitWarning ? { emitWarning: true } : {}),
      ...(options.failurePolicy ? { failurePolicy: options.failurePolicy } : {}),
      rules: [
        {
          name: `${name}-rule`,
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          ...(options.context ? { context: options.context } : {}),
          mutate: { patchStrategicMerge: patch },
        },
      ],
    },
  });
}

function setup(policies: ReturnType<typeof mutatePolicy>[]) {
  const clock = fakeClock();
  const engine = createEngine({ clock: clock });
  const cache = createPolicyCache({ engine });
  for (const p of policies) expect(cache.set(p).ready).toBe(true);
  const handler = createAdmissionHandler({
    engine,
    policyCache: cache,
    clock,
    logger: recordingLogger(),
    config: defaultKyvernoConfig(),
  });
  return (route: WebhookRoute, body: unknown) => {
    const reply = immediate(handler.handleBody(route, JSON.stringify(body)));
    if (reply.statusCode !== 200) throw new Error(reply.body.message);
    return reply.body.response;
  };
}

describe("mutate webhook", () => {
  it("returns the policies' changes as one base64 JSONPatch, each policy seeing the previous ones", () => {
    const call = setup([
      mutatePolicy("add-team", { metadata: { labels: { "+(team)": "platform" } } }),
      mutatePolicy("copy-team", {
        metadata: { annotations: { "+(owner)": "{{ request.object.metadata.labels.team }}" } },
      }),
    ]);
    const original = pod();
    const response = call(MUTATE_FAIL, review({ object: original }));
    expect(response.allowed).toBe(true);
    expect(response.patchType).toBe("JSONPatch");
    const ops = JSON.parse(Buffer.from(response.patch ?? "", "base64").toString("utf8")) as JsonValue;
    const patched = applyJson6902(original, ops);
    expect(patched.ok && patched.value).toMatchObject({
      metadata: { labels: { team: "platform" }, annotations: { owner: "platform" } },
    });
  });

  it("omits patch fields when nothing changes, and never patches on DELETE", () => {
    const call = setup([mutatePolicy("add-team", { metadata: { labels: { "+(team)": "platform" } } })]);
    const labelled = pod({ labels: { team: "apps" } });
    expect(call(MUTATE_FAIL, review({ object: labelled }))).toEqual({
      uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
      allowed: true,
    });
    expect(
      call(MUTATE_FAIL, review({ operation: "DELETE", object: null, oldObject: pod() })).patch,
    ).toBeUndefined();
  });

  it("keeps applying patches on dryRun (the patch is the answer, not a side effect)", () => {
    const call = setup([mutatePolicy("add-team", { metadata: { labels: { "+(team)": "platform" } } })]);
    expect(call(MUTATE_FAIL, review({ dryRun: true })).patch).toBeDefined();
  });

  it("warns about applied rules when the policy sets emitWarning", () => {
    const call = setup([
      mutatePolicy("add-team", { metadata: { labels: { "+(team)": "platform" } } }, { emitWarning: true }),
    ]);
    expect(call(MUTATE_FAIL, review({})).warnings).toEqual([
      "policy add-team.add-team-rule: mutated Pod/x in namespace default",
    ]);
  });

  it("denies when a rule errors under failurePolicy Fail and passes over it under Ignore", () => {
    // A division by zero fails at evaluation (a variable nothing declares is rejected at load).
    const broken = { metadata: { labels: { team: "{{ divide(`1`, `0`) }}" } } };
    const failing = setup([mutatePolicy("broken", broken)]);
    const denied = failing(MUTATE_FAIL, review({}));
    expect(denied.allowed).toBe(false);
    expect(denied.status?.message).toContain(
      "resource Pod/default/x was blocked due to the following policies\n\nbroken:\n  broken-rule:",
    );
    const ignoring = setup([mutatePolicy("broken", broken, { failurePolicy: "Ignore" })]);
    expect(ignoring({ type: "mutate", failurePolicy: "Ignore" }, review({}))).toEqual({
      uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
      allowed: true,
    });
  });
});

describe("mutate webhook with external data", () => {
  it("patches with values read from a ConfigMap loaded for the request", async () => {
    const clock = fakeClock();
    const engine = createEngine({ clock: clock });
    const cache = createPolicyCache({ engine });
    const withContext = mutatePolicy(
      "team-from-config",
      { metadata: { labels: { "+(team)": "{{ defaults.data.team }}" } } },
      { context: [{ name: "defaults", configMap: { name: "defaults", namespace: "kyverno" } }] },
    );
    expect(cache.set(withContext).ready).toBe(true);
    const loads: string[] = [];
    const handler = createAdmissionHandler({
      engine,
      policyCache: cache,
      clock,
      logger: recordingLogger(),
      config: defaultKyvernoConfig(),
      // A loader that has the ConfigMap after the first round asked for it.
      externalData: () => {
        let loaded = false;
        let asked = false;
        return {
          loader: {
            configMap: (namespace, name) => {
              if (loaded) return { ok: true, value: { data: { team: "payments" } } };
              asked = true;
              return { ok: false, error: `configMap ${namespace}/${name} not loaded yet` };
            },
          },
          async evaluate(run) {
            for (;;) {
              asked = false;
              const value = run();
              if (!asked) return value;
              loads.push("kyverno/defaults");
              loaded = true;
            }
          },
          clear() {},
        };
      },
    });
    const original = pod();
    const reply = await handler.handleBody(MUTATE_FAIL, JSON.stringify(review({ object: original })));
    if (reply.statusCode !== 200) throw new Error(reply.body.message);
    const ops = JSON.parse(
      Buffer.from(reply.body.response.patch ?? "", "base64").toString("utf8"),
    ) as JsonValue;
    const patched = applyJson6902(original, ops);
    expect(patched.ok && patched.value).toMatchObject({ metadata: { labels: { team: "payments" } } });
    expect(loads).toEqual(["kyverno/defaults"]);
  });
});
