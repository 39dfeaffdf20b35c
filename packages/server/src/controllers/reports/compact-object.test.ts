import type { KubeObject } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { type CompactObject, compactObject, parseObject, takeJson } from "./compact-object.js";

/** The cached object, decoded, as a scan that evaluates takes it. */
function takeObject(compact: CompactObject): KubeObject | undefined {
  const json = takeJson(compact);
  return json === undefined ? undefined : parseObject(json);
}

const pod: KubeObject = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: {
    name: "web",
    namespace: "team",
    uid: "6355d49c-8d61-4b7d-be24-4a3147bb4af9",
    resourceVersion: "3194",
    labels: { app: "web", ünïcode: "välue" },
    managedFields: [{ manager: "kubectl", operation: "Apply", fieldsV1: { "f:spec": {} } }],
  },
  spec: {
    containers: [{ name: "c", image: "nginx:1.27", ports: [{ containerPort: 80 }] }],
    hostNetwork: false,
  },
  status: { phase: "Pending", conditions: null },
};

describe("compact cached resources", () => {
  it("keep the identity the cache and the queue need, and give a scan the whole object back once", () => {
    const compact = compactObject(pod);
    expect(compact.metadata).toEqual({
      name: "web",
      namespace: "team",
      uid: "6355d49c-8d61-4b7d-be24-4a3147bb4af9",
      resourceVersion: "3194",
    });
    const again = takeObject(compact);
    expect(again).toEqual(pod);
    // Same keys in the same order: what a policy renders of the object is what the API server sent.
    expect(JSON.stringify(again)).toBe(JSON.stringify(pod));
    // Taken once: the cache keeps only the identity, and the next scan reads the API server.
    expect(compact.json).toBeUndefined();
    expect(takeObject(compact)).toBeUndefined();
  });

  it("give the text once, undecoded, and decode it to the object the API server sent", () => {
    const compact = compactObject(pod);
    const json = takeJson(compact);
    expect(json).toBe(JSON.stringify(pod));
    expect(compact.json).toBeUndefined();
    expect(takeJson(compact)).toBeUndefined();
    expect(takeObject(compact)).toBeUndefined();
    expect(parseObject(json as string)).toEqual(pod);
  });

  it("leave out what a cluster-scoped or incomplete object does not have", () => {
    const compact = compactObject({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "team", uid: 7 },
    });
    expect(compact.metadata).toEqual({ name: "team" });
    expect(takeObject(compact)).toEqual({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "team", uid: 7 },
    });
  });
});
