import { KYVERNO_CRDS } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../index.js";
import { raw } from "./raw.js";

describe("bad input and discovery over raw HTTPS", () => {
  let sandbox: Sandbox;
  let token: string;
  beforeAll(async () => {
    sandbox = await startSandbox({
      crds: [`${KYVERNO_CRDS}kyverno/kyverno.io_clusterpolicies.yaml`],
    });
    token = sandbox.users["kubernetes-admin"] ?? "";
  });
  afterAll(async () => {
    await sandbox?.stop();
  });
  const post = (path: string, body: string, contentType = "application/json") =>
    raw(sandbox, "POST", path, { token, body, contentType });

  it("answers 401 for a missing or unknown token", async () => {
    const res = await raw(sandbox, "GET", "/api/v1/namespaces", { token: "wrong" });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "Unauthorized",
      reason: "Unauthorized",
      code: 401,
    });
    expect((await raw(sandbox, "GET", "/version")).status).toBe(200);
  });

  it("rejects malformed bodies, wrong kinds and invalid names", async () => {
    const malformed = await post("/api/v1/namespaces/default/configmaps", "{not json");
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.body).reason).toBe("BadRequest");
    const wrongKind = await post(
      "/api/v1/namespaces/default/configmaps",
      JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "x" } }),
    );
    expect(wrongKind.status).toBe(400);
    const wrongNs = await post(
      "/api/v1/namespaces/default/configmaps",
      JSON.stringify({ metadata: { name: "x", namespace: "other" } }),
    );
    expect(JSON.parse(wrongNs.body).message).toBe(
      "the namespace of the provided object does not match the namespace sent on the request",
    );
    const invalid = await post(
      "/api/v1/namespaces/default/configmaps",
      JSON.stringify({ metadata: { name: "Not_Valid", labels: { "bad key!": "v" } } }),
    );
    expect(invalid.status).toBe(422);
    const status = JSON.parse(invalid.body);
    expect(status).toMatchObject({ reason: "Invalid", details: { name: "Not_Valid", kind: "ConfigMap" } });
    expect(status.details.causes.map((c: { field: string }) => c.field)).toEqual([
      "metadata.name",
      "metadata.labels",
    ]);
    const boolAnnotation = await post(
      "/api/v1/namespaces/default/configmaps",
      JSON.stringify({ metadata: { name: "x", annotations: { enabled: true } } }),
    );
    expect(boolAnnotation.status).toBe(400);
    expect(JSON.parse(boolAnnotation.body).message).toBe(
      "json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.annotations of type string",
    );
    const noName = await post("/api/v1/namespaces/default/configmaps", JSON.stringify({ metadata: {} }));
    expect(JSON.parse(noName.body).message).toBe(
      'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
    );
  });

  it("rejects bodies over 3 MiB and objects over 1.5 MiB with 413", async () => {
    const huge = await post(
      "/api/v1/namespaces/default/configmaps",
      JSON.stringify({ metadata: { name: "h" }, data: { a: "x".repeat(3_200_000) } }),
    );
    expect(huge.status).toBe(413);
    const big = await post(
      "/apis/kyverno.io/v1/clusterpolicies",
      JSON.stringify({
        apiVersion: "kyverno.io/v1",
        kind: "ClusterPolicy",
        metadata: { name: "big", annotations: {} },
        spec: { rules: [{ name: "r", match: { any: [{ resources: { kinds: ["x".repeat(1_700_000)] } }] } }] },
      }),
    );
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body).reason).toBe("RequestEntityTooLarge");
  });

  it("measures a Secret's data limit (1 MiB) in decoded bytes, as Helm's release Secrets need", async () => {
    const secret = (name: string, bytes: number) =>
      JSON.stringify({
        metadata: { name },
        data: { release: Buffer.alloc(bytes, 7).toString("base64") },
      });
    // 900 KiB of data is 1.2 MB of base64: stored.
    expect((await post("/api/v1/namespaces/default/secrets", secret("fits", 900 * 1024))).status).toBe(201);
    const over = await post("/api/v1/namespaces/default/secrets", secret("over", 1024 * 1024 + 1));
    expect(over.status).toBe(422);
    expect(JSON.parse(over.body).message).toContain("Too long: may not be more than 1048576 bytes");
  });

  it("merges a Secret's stringData into data and does not store it (Helm's Policy Reporter config Secret)", async () => {
    const body = JSON.stringify({
      metadata: { name: "config" },
      data: { a: "YQ==" },
      stringData: { "config.yaml": "port: 8080\n" },
    });
    const created = await post("/api/v1/namespaces/default/secrets", body);
    expect(created.status).toBe(201);
    const stored = JSON.parse(
      (await raw(sandbox, "GET", "/api/v1/namespaces/default/secrets/config", { token })).body,
    );
    expect(stored.data).toEqual({ a: "YQ==", "config.yaml": Buffer.from("port: 8080\n").toString("base64") });
    expect(stored.stringData).toBeUndefined();
  });

  it("answers unknown resources and methods like kube-apiserver", async () => {
    expect((await raw(sandbox, "GET", "/api/v1/widgets", { token })).status).toBe(404);
    expect((await raw(sandbox, "GET", "/apis/nope.io/v1", { token })).body).toBe("404 page not found\n");
    expect(
      (await raw(sandbox, "POST", "/api/v1/namespaces/default/configmaps/x", { token, body: "{}" })).status,
    ).toBe(405);
    const smp = await raw(sandbox, "PATCH", "/apis/kyverno.io/v1/clusterpolicies/x", {
      token,
      body: "{}",
      contentType: "application/strategic-merge-patch+json",
    });
    expect(smp.status).toBe(415);
  });

  it("serves legacy and aggregated discovery and a Table for kubectl", async () => {
    const core = JSON.parse((await raw(sandbox, "GET", "/api/v1", { token })).body);
    const pods = core.resources.find((r: { name: string }) => r.name === "pods");
    expect(pods).toMatchObject({ namespaced: true, kind: "Pod", shortNames: ["po"], categories: ["all"] });
    const agg = await raw(sandbox, "GET", "/apis", {
      token,
      accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json",
    });
    expect(agg.headers["content-type"]).toBe(
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
    );
    const groups = JSON.parse(agg.body).items.map((g: { metadata: { name: string } }) => g.metadata.name);
    expect(groups).toContain("kyverno.io");
    const table = JSON.parse(
      (
        await raw(sandbox, "GET", "/api/v1/namespaces", {
          token,
          accept: "application/json;as=Table;v=v1;g=meta.k8s.io",
        })
      ).body,
    );
    expect(table.kind).toBe("Table");
    expect(table.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(["Name", "Status", "Age"]);
  });
});
