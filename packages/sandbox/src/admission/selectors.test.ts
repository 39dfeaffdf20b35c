import { describe, expect, it } from "vitest";
import { matchNamespaceSelector, matchObjectSelector } from "./selectors.js";
import { podAttrs } from "./testing/attrs.js";

const labelled = (labels: Record<string, string>) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", labels },
});

describe("matchNamespaceSelector", () => {
  const attrs = podAttrs({ namespaceLabels: { env: "prod", team: "a" } });
  it.each([
    [{}, true],
    [{ matchLabels: { env: "prod" } }, true],
    [{ matchLabels: { env: "dev" } }, false],
    [{ matchExpressions: [{ key: "env", operator: "In", values: ["prod", "stage"] }] }, true],
    [{ matchExpressions: [{ key: "env", operator: "NotIn", values: ["prod"] }] }, false],
    [{ matchExpressions: [{ key: "team", operator: "Exists" }] }, true],
    [{ matchExpressions: [{ key: "kyverno.io/ignore", operator: "DoesNotExist" }] }, true],
  ])("%j → %s", (selector, expected) => {
    expect(matchNamespaceSelector(selector, attrs)).toEqual({ matches: expected });
  });

  it("always matches cluster-scoped objects other than namespaces", () => {
    const attrs = podAttrs({ namespace: "", resource: { group: "", version: "v1", resource: "nodes" } });
    expect(matchNamespaceSelector({ matchLabels: { env: "prod" } }, attrs)).toEqual({ matches: true });
  });

  it("uses the namespace's own labels for a Namespace", () => {
    const attrs = podAttrs({
      namespace: "",
      name: "team-a",
      resource: { group: "", version: "v1", resource: "namespaces" },
      namespaceLabels: { env: "dev" },
    });
    expect(matchNamespaceSelector({ matchLabels: { env: "prod" } }, attrs)).toEqual({ matches: false });
  });

  it("reports an invalid selector as an internal error", () => {
    const r = matchNamespaceSelector(
      { matchExpressions: [{ key: "env", operator: "In", values: [] }] },
      attrs,
    );
    expect(r.error?.code).toBe(500);
    expect(r.error?.message).toMatch(/^Internal error occurred: values: Invalid value/);
    const bad = matchNamespaceSelector({ matchExpressions: [{ key: "env", operator: "Like" }] }, attrs);
    expect(bad.error?.message).toBe('Internal error occurred: "Like" is not a valid label selector operator');
  });
});

describe("matchObjectSelector", () => {
  const selector = { matchLabels: { app: "web" } };
  it("matches the new object's labels", () => {
    expect(matchObjectSelector(selector, podAttrs({ object: labelled({ app: "web" }) })).matches).toBe(true);
  });
  it("matches the old object's labels when the new one lost them", () => {
    const attrs = podAttrs({
      operation: "UPDATE",
      object: labelled({}),
      oldObject: labelled({ app: "web" }),
    });
    expect(matchObjectSelector(selector, attrs).matches).toBe(true);
  });
  it("matches the old object on DELETE", () => {
    const attrs = podAttrs({ operation: "DELETE", object: null, oldObject: labelled({ app: "web" }) });
    expect(matchObjectSelector(selector, attrs).matches).toBe(true);
  });
  it("does not match when neither has the labels", () => {
    const attrs = podAttrs({ operation: "UPDATE", object: labelled({ app: "db" }), oldObject: labelled({}) });
    expect(matchObjectSelector(selector, attrs).matches).toBe(false);
  });
  it("never matches objects without metadata, even with a negative selector", () => {
    const attrs = podAttrs({ operation: "CONNECT", object: { kind: "PodExecOptions" } });
    expect(
      matchObjectSelector({ matchExpressions: [{ key: "x", operator: "DoesNotExist" }] }, attrs).matches,
    ).toBe(false);
  });
  it("empty selector matches everything", () => {
    expect(matchObjectSelector({}, podAttrs({ object: null })).matches).toBe(true);
  });
});
