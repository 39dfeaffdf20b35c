import type { JsonValue } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { podOf } from "./pod-of.js";

const meta = { labels: { app: "x" } };
const spec = { containers: [{ name: "a", image: "x" }] };
const template = { metadata: meta, spec };

describe("podOf", () => {
  it("reads a Pod", () => {
    expect(podOf({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec })).toEqual({
      podMetadata: { name: "p" },
      podSpec: spec,
    });
  });

  it.each(["Deployment", "DaemonSet", "StatefulSet", "Job", "ReplicaSet", "ReplicationController"])(
    "reads the template of a %s",
    (kind) => {
      expect(podOf({ kind, metadata: { name: "d" }, spec: { replicas: 1, template } })).toEqual({
        podMetadata: meta,
        podSpec: spec,
      });
    },
  );

  it("reads the job template of a CronJob", () => {
    const cron = { kind: "CronJob", spec: { schedule: "* * * * *", jobTemplate: { spec: { template } } } };
    expect(podOf(cron)).toEqual({ podMetadata: meta, podSpec: spec });
  });

  it("gives empty parts when they are missing", () => {
    expect(podOf({ kind: "Deployment", spec: {} })).toEqual({ podMetadata: {}, podSpec: {} });
    expect(podOf({ kind: "Pod" })).toEqual({ podMetadata: {}, podSpec: {} });
  });

  it.each<[string, JsonValue]>([
    ["another kind", { kind: "Service", spec: { template } }],
    ["no kind", { spec }],
    ["not an object", ["Pod"]],
    ["null", null],
  ])("is undefined for %s", (_name, resource) => {
    expect(podOf(resource)).toBeUndefined();
  });
});
