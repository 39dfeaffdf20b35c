import type { ContextEntry, KubeObject, Policy, Rule } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { createEngine } from "../engine.js";
import type { ContextLoader } from "../engine-types.js";

const clock = { now: () => new Date("2026-01-01T00:00:00Z").getTime() };

function policy(rule: Omit<Rule, "name" | "match">): Policy {
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "p" },
    spec: {
      rules: [{ name: "r", match: { any: [{ resources: { kinds: ["ConfigMap"] } }] }, ...rule }],
      validationFailureAction: "Enforce",
      background: false,
    },
  } as Policy;
}

const cm = (data: Record<string, string>): KubeObject =>
  ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "c", namespace: "default" },
    data,
  }) as KubeObject;

/** A loader whose apiCall always fails and whose ConfigMaps exist; it counts the calls. */
function countingLoader() {
  const calls: string[] = [];
  const loader: ContextLoader = {
    apiCall: (call) => {
      calls.push(`api ${call.urlPath}`);
      return { ok: false, error: "the server could not find the requested resource" };
    },
    configMap: (ns, name) => {
      calls.push(`cm ${ns}/${name}`);
      return { ok: true, value: { data: { limit: "3" } } };
    },
  };
  return { calls, loader };
}

const failing: ContextEntry = { name: "remote", apiCall: { urlPath: "/api/v1/namespaces/x/missing" } };
const settings: ContextEntry = { name: "settings", configMap: { name: "s", namespace: "kyverno" } };

function evaluate(p: Policy, resource: KubeObject, loader: ContextLoader) {
  const engine = createEngine({ clock, contextLoader: loader });
  const compiled = engine.compile(p);
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.issues));
  return engine.validate(compiled.policy, { resource }).rules[0];
}

describe("context entries are loaded lazily, as upstream's deferred loading", () => {
  it("a failing apiCall nothing reads neither errors nor is called", () => {
    const { calls, loader } = countingLoader();
    const rule = evaluate(
      policy({ context: [failing], validate: { pattern: { data: { a: "?*" } } } }),
      cm({ a: "x" }),
      loader,
    );
    expect(rule?.status).toBe("pass");
    expect(calls).toEqual([]);
  });

  it("a failing apiCall behind preconditions that are not met skips the rule without calling it", () => {
    const { calls, loader } = countingLoader();
    const rule = evaluate(
      policy({
        context: [failing],
        preconditions: {
          all: [{ key: "{{ request.object.data.check }}", operator: "Equals", value: "yes" }],
        },
        validate: {
          deny: { conditions: { any: [{ key: "{{ remote.items }}", operator: "Equals", value: [] }] } },
        },
      }),
      cm({ check: "no" }),
      loader,
    );
    expect(rule?.status).toBe("skip");
    expect(calls).toEqual([]);
  });

  it("the same apiCall read by the rule it guards is an error naming the variable and the failure", () => {
    const { calls, loader } = countingLoader();
    const rule = evaluate(
      policy({
        context: [failing],
        validate: {
          deny: { conditions: { any: [{ key: "{{ remote.items }}", operator: "Equals", value: [] }] } },
        },
      }),
      cm({ check: "yes" }),
      loader,
    );
    expect(rule?.status).toBe("error");
    expect(rule?.message).toContain("remote.items");
    expect(rule?.message).toContain("the server could not find the requested resource");
    expect(calls).toEqual(["api /api/v1/namespaces/x/missing"]);
  });

  it("an entry read through another is loaded once, before it, with the value an eager load gives", () => {
    const { calls, loader } = countingLoader();
    const rule = evaluate(
      policy({
        context: [
          settings,
          failing,
          { name: "limit", variable: { jmesPath: "to_number(settings.data.limit)" } },
        ],
        validate: {
          message: "at most {{ limit }} keys",
          deny: {
            conditions: {
              any: [
                { key: "{{ length(request.object.data) }}", operator: "GreaterThan", value: "{{ limit }}" },
              ],
            },
          },
        },
      }),
      cm({ a: "1", b: "2", c: "3", d: "4" }),
      loader,
    );
    expect(rule?.status).toBe("fail");
    expect(rule?.message).toBe("at most 3 keys");
    expect(calls).toEqual(["cm kyverno/s"]);
  });

  it("a name inside another path (`x.remote`) does not load the entry; a function argument does", () => {
    const { calls, loader } = countingLoader();
    const unrelated = evaluate(
      policy({
        context: [failing],
        validate: {
          deny: {
            conditions: {
              any: [{ key: "{{ request.object.data.remote }}", operator: "Equals", value: "z" }],
            },
          },
        },
      }),
      cm({ remote: "y" }),
      loader,
    );
    expect(unrelated?.status).toBe("pass");
    expect(calls).toEqual([]);
    const named = evaluate(
      policy({
        context: [failing],
        validate: {
          deny: { conditions: { any: [{ key: "{{ length(remote) }}", operator: "Equals", value: 0 }] } },
        },
      }),
      cm({}),
      loader,
    );
    expect(named?.status).toBe("error");
  });

  it("a foreach entry's failing apiCall only errors for the elements that reach it", () => {
    const { loader } = countingLoader();
    const rule = evaluate(
      policy({
        validate: {
          foreach: [
            {
              list: "request.object.data | keys(@)",
              context: [failing],
              preconditions: { all: [{ key: "{{ element }}", operator: "Equals", value: "checked" }] },
              deny: { conditions: { any: [{ key: "{{ remote.items }}", operator: "Equals", value: [] }] } },
            },
          ],
        },
      }),
      cm({ a: "1", b: "2" }),
      loader,
    );
    expect(rule?.status).toBe("skip");
  });
});
