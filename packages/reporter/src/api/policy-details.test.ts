import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPolicyCatalog, type PolicyCatalog } from "../policies/catalog.js";
import { createStore } from "../store/connect.js";
import type { ReportStore } from "../store/types.js";
import type { ApiError, PolicyDetails, PolicyDetailsList } from "./contract.js";
import { type ApiServer, createApiServer } from "./server.js";

const clusterPolicy = {
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: {
    name: "require-labels",
    annotations: {
      "policies.kyverno.io/title": "Require Labels",
      "policies.kyverno.io/category": "Best Practices",
      "policies.kyverno.io/severity": "medium",
      "policies.kyverno.io/description": "Every Pod needs a team label.",
    },
    managedFields: [{ manager: "kubectl" }],
  },
  spec: { rules: [{ name: "check-team", match: {}, validate: { pattern: {} } }] },
};
const policy = {
  apiVersion: "kyverno.io/v1",
  kind: "Policy",
  metadata: { name: "require-labels", namespace: "team-a" },
  spec: { validationFailureAction: "Enforce", rules: [{ name: "check", match: {}, validate: {} }] },
};

describe("policy details API", () => {
  let store: ReportStore;
  let catalog: PolicyCatalog;
  let api: ApiServer;
  let bare: ApiServer;
  let guarded: ApiServer;
  const get = async (server: ApiServer, url: string, headers: Record<string, string> = {}) => {
    const res = await server.app.inject({ method: "GET", url, headers });
    return { status: res.statusCode, body: res.json<unknown>() };
  };

  beforeAll(async () => {
    store = await createStore({ type: "sqlite", path: ":memory:" });
    catalog = createPolicyCatalog();
    catalog.setWatched(["ClusterPolicy", "Policy"]);
    catalog.upsert(clusterPolicy);
    catalog.upsert(policy);
    api = await createApiServer({ store, ready: true, policies: catalog });
    bare = await createApiServer({ store, ready: true });
    guarded = await createApiServer({
      store,
      ready: true,
      policies: catalog,
      basicAuth: { username: "admin", password: "secret" },
    });
  });
  afterAll(async () => {
    await api?.close();
    await bare?.close();
    await guarded?.close();
    await store?.close();
  });

  it("serves a ClusterPolicy by name, in the declared shape", async () => {
    const { status, body } = await get(api, "/v2/policy-details/require-labels");
    expect(status).toBe(200);
    const details = body as PolicyDetails;
    expect(details).toEqual({
      kind: "ClusterPolicy",
      name: "require-labels",
      policy: "require-labels",
      title: "Require Labels",
      description: "Every Pod needs a team label.",
      category: "Best Practices",
      severity: "medium",
      engine: { name: "Kyverno", subjects: [] },
      background: true,
      validationFailureAction: "Audit",
      failureActions: ["Audit"],
      rules: [{ name: "check-team", type: "validate", failureAction: "Audit" }],
      code: { contentType: "text/yaml", content: expect.any(String), truncated: false },
    });
    expect(details.code.content).toContain("kind: ClusterPolicy\n");
    expect(details.code.content).not.toContain("managedFields");
  });

  it("serves a Policy under namespace/name, the name its results carry", async () => {
    const { status, body } = await get(api, "/v2/policy-details/team-a/require-labels");
    expect(status).toBe(200);
    expect(body).toMatchObject({
      kind: "Policy",
      namespace: "team-a",
      policy: "team-a/require-labels",
      validationFailureAction: "Enforce",
    });
    // An encoded slash (a client that encoded the whole name) finds it too.
    expect((await get(api, "/v2/policy-details/team-a%2Frequire-labels")).status).toBe(200);
  });

  it("lists the watched kinds and the known policies without their YAML", async () => {
    const { body } = await get(api, "/v2/policy-details");
    const list = body as PolicyDetailsList;
    expect(list.watched).toEqual(["ClusterPolicy", "Policy"]);
    expect(list.items.map((p) => p.policy)).toEqual(["require-labels", "team-a/require-labels"]);
    expect(list.items[0]).not.toHaveProperty("code");
  });

  it("answers 404 with a code and a clear message for an unknown policy", async () => {
    const { status, body } = await get(api, "/v2/policy-details/nope");
    expect(status).toBe(404);
    expect(body).toEqual({
      statusCode: 404,
      code: "POLICY_NOT_FOUND",
      error: "Not Found",
      message: 'no ClusterPolicy or Policy named "nope" is known to the reporter',
    } satisfies ApiError);
    expect((await get(api, "/v2/policy-details/team-b/require-labels")).body).toMatchObject({
      code: "POLICY_NOT_FOUND",
    });
  });

  it("says policy details are unavailable when no policies are watched", async () => {
    const { status, body } = await get(bare, "/v2/policy-details/require-labels");
    expect(status).toBe(404);
    expect(body).toMatchObject({ code: "POLICY_DETAILS_UNAVAILABLE" });
    expect((body as ApiError).message).toMatch(/watches no Kyverno policies/);
    expect((await get(bare, "/v2/policy-details")).body).toEqual({ watched: [], items: [] });
    const idle = createPolicyCatalog();
    idle.upsert(clusterPolicy);
    const server = await createApiServer({ store, ready: true, policies: idle });
    expect((await get(server, "/v2/policy-details/x")).body).toMatchObject({
      code: "POLICY_DETAILS_UNAVAILABLE",
    });
    await server.close();
  });

  it("validates the path and requires the API's credentials like every other route", async () => {
    expect((await get(api, `/v2/policy-details/${"n".repeat(300)}`)).status).toBe(400);
    expect((await get(api, `/v2/policy-details/${"n".repeat(64)}/p`)).status).toBe(400);
    expect((await get(guarded, "/v2/policy-details/require-labels")).status).toBe(401);
    expect((await get(guarded, "/v2/policy-details")).status).toBe(401);
    const auth = { authorization: `Basic ${Buffer.from("admin:secret").toString("base64")}` };
    expect((await get(guarded, "/v2/policy-details/require-labels", auth)).status).toBe(200);
  });
});
