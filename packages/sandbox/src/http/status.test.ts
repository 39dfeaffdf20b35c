import { describe, expect, it } from "vitest";
import {
  alreadyExists,
  conflict,
  fieldInvalid,
  fieldRequired,
  invalid,
  notFound,
  OBJECT_MODIFIED,
} from "./status.js";

describe("Status errors", () => {
  it("shapes NotFound exactly like kube-apiserver, with the group in messages and details", () => {
    expect(notFound({ group: "", resource: "pods" }, "web").toStatus()).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'pods "web" not found',
      reason: "NotFound",
      details: { name: "web", kind: "pods" },
      code: 404,
    });
    expect(notFound({ group: "apps", resource: "deployments" }, "web").toStatus()).toMatchObject({
      message: 'deployments.apps "web" not found',
      details: { name: "web", group: "apps", kind: "deployments" },
    });
  });

  it("builds AlreadyExists and Conflict", () => {
    expect(alreadyExists({ group: "", resource: "namespaces" }, "a").message).toBe(
      'namespaces "a" already exists',
    );
    const c = conflict({ group: "kyverno.io", resource: "clusterpolicies" }, "p", OBJECT_MODIFIED);
    expect(c.code).toBe(409);
    expect(c.message).toBe(
      'Operation cannot be fulfilled on clusterpolicies.kyverno.io "p": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it("joins several Invalid causes in brackets and lists them in details", () => {
    const one = invalid("", "ConfigMap", "x", [
      fieldRequired("metadata.name", "name or generateName is required"),
    ]);
    expect(one.message).toBe(
      'ConfigMap "x" is invalid: metadata.name: Required value: name or generateName is required',
    );
    const two = invalid("apps", "Deployment", "d", [
      fieldRequired("spec.selector", ""),
      fieldInvalid("metadata.name", "D", "bad"),
    ]);
    expect(two.message).toBe(
      'Deployment.apps "d" is invalid: [spec.selector: Required value, metadata.name: Invalid value: "D": bad]',
    );
    expect(two.toStatus()).toMatchObject({
      code: 422,
      reason: "Invalid",
      details: {
        name: "d",
        group: "apps",
        kind: "Deployment",
        causes: [{ reason: "FieldValueRequired", field: "spec.selector" }, { reason: "FieldValueInvalid" }],
      },
    });
  });
});
