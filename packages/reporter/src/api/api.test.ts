import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resourceId } from "../model/ids.js";
import type { ReportStore } from "../store/types.js";
import { apiDataset } from "../testing/api-dataset.js";
import { testBackends } from "../testing/backends.js";
import type { Findings, Paginated, PolicyReportSummary, PolicyResult, ResourceResult } from "./contract.js";
import { type ApiServer, createApiServer } from "./server.js";

const podId = (name: string, ns: string) =>
  resourceId({ apiVersion: "v1", kind: "Pod", name, namespace: ns, uid: `uid-${ns}-${name}` });
const zero = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
const noSeverity = { unknown: 0, info: 0, low: 0, medium: 0, high: 0, critical: 0 };

describe.each(testBackends())("API on $name", (backend) => {
  let store: ReportStore;
  let cleanup: () => Promise<void>;
  let api: ApiServer;
  const get = async <T = unknown>(url: string): Promise<T> => {
    const res = await api.app.inject({ method: "GET", url });
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.json<T>();
  };
  const names = (items: PolicyResult[]) => items.map((r) => `${r.name}/${r.policy}`);

  beforeAll(async () => {
    ({ store, cleanup } = await backend.open());
    await store.write(apiDataset().map((report) => ({ type: "upsert" as const, report })));
    api = await createApiServer({ store, ready: true });
  });
  afterAll(async () => {
    await api?.close();
    await cleanup?.();
  });

  it("lists namespaces, sources, kinds, policies, rules and categories in byte order", async () => {
    expect(await get("/v2/namespaces")).toEqual(["team-a", "team-b"]);
    expect(await get("/v1/namespaces?sources=trivy")).toEqual(["team-b"]);
    expect(await get("/v2/sources")).toEqual(["kyverno", "trivy"]);
    expect(await get("/v2/namespace-scoped/kinds")).toEqual(["Deployment", "Pod"]);
    expect(await get("/v2/cluster-scoped/kinds")).toEqual(["Namespace"]);
    expect(await get("/v1/namespaced-resources/policies")).toEqual([
      "CVE-2024-0001",
      "CVE-2024-0002",
      "audit-config",
      "disallow-latest",
      "require-labels",
      "restrict-root",
    ]);
    expect(await get("/v1/namespaced-resources/rules?sources=kyverno")).toEqual([
      "check",
      "check-labels",
      "run-as-non-root",
      "validate-image",
    ]);
    expect(await get("/v1/namespaced-resources/categories")).toEqual([
      "Best Practices",
      "Other",
      "Pod Security",
      "Security",
      "Vulnerability",
    ]);
    expect(await get("/v1/cluster-resources/policies")).toEqual(["require-ns-labels"]);
    expect(await get("/v2/properties/installedVersion")).toEqual(["1.0", "7.0"]);
    const resources = await get<{ name: string }[]>("/v1/namespaced-resources/resources");
    expect(resources.map((r) => r.name)).toEqual(["api", "web", "db"]);
  });

  it("counts findings by status and by severity per source", async () => {
    expect(await get<Findings<string>>("/v2/findings")).toEqual({
      total: 12,
      perResult: { pass: 5, fail: 5, warn: 1, error: 1, skip: 0 },
      counts: [
        { source: "kyverno", total: 10, counts: { pass: 5, fail: 3, warn: 1, error: 1, skip: 0 } },
        { source: "trivy", total: 2, counts: { ...zero, fail: 2 } },
      ],
    });
    expect(await get("/v2/severity-findings?status=fail")).toEqual({
      total: 5,
      perResult: { ...noSeverity, low: 2, medium: 2, critical: 1 },
      counts: [
        { source: "kyverno", total: 3, counts: { ...noSeverity, low: 1, medium: 2 } },
        { source: "trivy", total: 2, counts: { ...noSeverity, low: 1, critical: 1 } },
      ],
    });
  });

  it("serves status and severity counts per namespace, cluster and source", async () => {
    expect(await get("/v2/namespace-scoped/kyverno/status-counts")).toEqual({
      "team-a": { ...zero, pass: 2, fail: 2, warn: 1 },
      "team-b": { ...zero, pass: 2, error: 1 },
    });
    expect(await get("/v2/cluster-scoped/kyverno/status-counts")).toEqual({ ...zero, pass: 1, fail: 1 });
    expect(await get("/v2/namespace-scoped/trivy/severity-counts")).toEqual({
      "team-b": { ...noSeverity, low: 1, critical: 1 },
    });
    expect(await get("/v2/cluster-scoped/kyverno/severity-counts")).toEqual({ ...noSeverity, low: 2 });
    expect(await get("/v2/sources/kyverno/status-counts")).toEqual({
      pass: 5,
      fail: 3,
      warn: 1,
      error: 1,
      skip: 0,
    });
    expect(await get("/v2/sources/trivy/severity-counts?namespaces=team-b")).toEqual({
      ...noSeverity,
      low: 1,
      critical: 1,
    });
    expect(await get("/v1/namespaced-resources/status-counts")).toEqual([
      {
        status: "pass",
        items: [
          { namespace: "team-a", count: 2 },
          { namespace: "team-b", count: 2 },
        ],
      },
      {
        status: "fail",
        items: [
          { namespace: "team-a", count: 2 },
          { namespace: "team-b", count: 2 },
        ],
      },
      { status: "warn", items: [{ namespace: "team-a", count: 1 }] },
      { status: "error", items: [{ namespace: "team-b", count: 1 }] },
      { status: "skip", items: [] },
    ]);
    expect(await get("/v1/cluster-resources/status-counts?status=fail&status=pass")).toEqual([
      { status: "fail", count: 1 },
      { status: "pass", count: 1 },
    ]);
  });

  it("groups policies and the source / category tree", async () => {
    expect(await get("/v2/policies?sources=kyverno")).toEqual([
      { source: "kyverno", category: "Other", policy: "audit-config", results: { ...zero, pass: 1 } },
      {
        source: "kyverno",
        category: "Security",
        policy: "disallow-latest",
        severity: "high",
        results: { ...zero, pass: 2 },
      },
      {
        source: "kyverno",
        category: "Best Practices",
        policy: "require-labels",
        severity: "medium",
        results: { ...zero, pass: 1, fail: 2 },
      },
      {
        source: "kyverno",
        category: "Best Practices",
        policy: "require-ns-labels",
        severity: "low",
        results: { ...zero, pass: 1, fail: 1 },
      },
      {
        source: "kyverno",
        category: "Pod Security",
        policy: "restrict-root",
        severity: "critical",
        results: { ...zero, warn: 1, error: 1 },
      },
    ]);
    expect(await get("/v2/sources/categories")).toEqual([
      {
        name: "kyverno",
        categories: [
          { name: "Best Practices", ...zero, pass: 2, fail: 3 },
          { name: "Other", ...zero, pass: 1 },
          { name: "Pod Security", ...zero, warn: 1, error: 1 },
          { name: "Security", ...zero, pass: 2 },
        ],
      },
      { name: "trivy", categories: [{ name: "Vulnerability", ...zero, fail: 2 }] },
    ]);
  });

  it("pages results with filters, sorting, labels and search", async () => {
    const first = await get<Paginated<PolicyResult>>(
      "/v2/namespace-scoped/results?status=fail&page=1&offset=3",
    );
    expect(first.count).toBe(4);
    expect(names(first.items)).toEqual(["api/require-labels", "web/require-labels", "db/CVE-2024-0001"]);
    expect(first.items[0]).toMatchObject({
      namespace: "team-a",
      kind: "Deployment",
      apiVersion: "apps/v1",
      message: "label app is required",
      category: "Best Practices",
      rule: "check-labels",
      status: "fail",
      source: "kyverno",
      severity: "medium",
      timestamp: 1767225600,
    });
    const second = await get<Paginated<PolicyResult>>(
      "/v2/namespace-scoped/results?status=fail&page=2&offset=3",
    );
    expect(names(second.items)).toEqual(["db/CVE-2024-0002"]);
    const bySeverity = await get<Paginated<PolicyResult>>(
      "/v2/namespace-scoped/results?status=fail&page=1&offset=10&sortBy=severity&direction=desc",
    );
    expect(names(bySeverity.items)).toEqual([
      "db/CVE-2024-0001",
      "web/require-labels",
      "api/require-labels",
      "db/CVE-2024-0002",
    ]);
    const labelled = await get<Paginated<PolicyResult>>(
      "/v1/namespaced-resources/results?labels=team:b&status=fail&page=1",
    );
    expect(labelled.count).toBe(2);
    expect(labelled.items[0]?.properties).toEqual({ installedVersion: "1.0", fixedVersion: "1.1" });
    const searched = await get<Paginated<PolicyResult>>(
      "/v2/namespace-scoped/results?search=ROOT&page=1&offset=5",
    );
    expect(names(searched.items)).toEqual(["web/restrict-root", "db/restrict-root"]);
    expect(searched.count).toBe(2);
    const bracketed = await get<Paginated<PolicyResult>>(
      "/v2/namespace-scoped/results?namespaces[]=team-a&kinds[]=Pod",
    );
    expect(bracketed.count).toBe(3);
    const without = await get<Paginated<PolicyResult>>(
      "/v2/namespace-scoped/results-without-resources?page=1",
    );
    expect(without).toMatchObject({
      count: 1,
      items: [{ policy: "audit-config", resourceId: "", category: "Other" }],
    });
    const cluster = await get<Paginated<PolicyResult>>("/v1/cluster-resources/results");
    expect(cluster.items.map((r) => `${r.kind}/${r.name}:${r.status}`)).toEqual([
      "Namespace/team-a:fail",
      "Namespace/team-b:pass",
    ]);
    expect(cluster.items[0]?.namespace).toBeUndefined();
  });

  it("pages per-resource result counts", async () => {
    const page = await get<Paginated<ResourceResult>>(
      "/v2/namespace-scoped/resource-results?page=1&offset=3",
    );
    expect(page.count).toBe(4);
    expect(page.items.map((r) => `${r.namespace}/${r.kind}/${r.name}/${r.source}`)).toEqual([
      "team-a/Deployment/api/kyverno",
      "team-a/Pod/web/kyverno",
      "team-b/Pod/db/kyverno",
    ]);
    expect(page.items[1]).toMatchObject({
      id: podId("web", "team-a"),
      uid: "uid-team-a-web",
      pass: 1,
      fail: 1,
      warn: 1,
    });
    const failing = await get<Paginated<ResourceResult>>(
      "/v2/namespace-scoped/resource-results?status=fail&page=1",
    );
    expect(failing.items.map((r) => `${r.name}/${r.source}:${r.fail}/${r.pass}`)).toEqual([
      "api/kyverno:1/0",
      "web/kyverno:1/0",
      "db/trivy:2/0",
    ]);
    const bySeverity = await get<Paginated<ResourceResult>>(
      "/v2/namespace-scoped/resource-results?severities=critical&page=1",
    );
    expect(bySeverity.items.map((r) => `${r.name}/${r.source}:${r.error}/${r.fail}`)).toEqual([
      "db/kyverno:1/0",
      "db/trivy:0/1",
    ]);
    const cluster = await get<Paginated<ResourceResult>>("/v2/cluster-scoped/resource-results");
    expect(cluster.items.map((r) => `${r.kind}/${r.name}`)).toEqual(["Namespace/team-a", "Namespace/team-b"]);
  });

  it("describes one resource", async () => {
    const db = podId("db", "team-b");
    expect(await get(`/v2/resource/${db}`)).toEqual({
      id: db,
      uid: "uid-team-b-db",
      name: "db",
      namespace: "team-b",
      kind: "Pod",
      apiVersion: "v1",
    });
    expect(await get(`/v2/resource/${db}/status-counts`)).toEqual([
      { source: "kyverno", ...zero, pass: 1, error: 1 },
      { source: "trivy", ...zero, fail: 2 },
    ]);
    expect(await get(`/v2/resource/${db}/severity-counts`)).toEqual([
      { source: "kyverno", ...noSeverity, medium: 1, critical: 1 },
      { source: "trivy", ...noSeverity, low: 1, critical: 1 },
    ]);
    const perCategory = await get<ResourceResult[]>(`/v2/resource/${db}/resource-results`);
    expect(perCategory.map((r) => `${r.source}/${r.category}:${r.pass}${r.fail}${r.error}`)).toEqual([
      "kyverno/Best Practices:100",
      "kyverno/Pod Security:001",
      "trivy/Vulnerability:020",
    ]);
    const results = await get<Paginated<PolicyResult>>(`/v2/resource/${db}/results?page=1&offset=10`);
    expect(results.count).toBe(4);
    expect(results.items.every((r) => r.resourceId === db)).toBe(true);
    expect(await get(`/v2/resource/${db}/source-categories`)).toEqual([
      {
        name: "kyverno",
        categories: [
          { name: "Best Practices", ...zero, pass: 1 },
          { name: "Pod Security", ...zero, error: 1 },
        ],
      },
      { name: "trivy", categories: [{ name: "Vulnerability", ...zero, fail: 2 }] },
    ]);
    const missing = await api.app.inject({ url: "/v2/resource/12345" });
    expect(missing.statusCode).toBe(404);
  });

  it("lists reports with counts", async () => {
    const reports = await get<Paginated<PolicyReportSummary>>("/v1/policy-reports?page=1&offset=10");
    expect(reports.count).toBe(5);
    expect(reports.items.map((r) => `${r.namespace}/${r.name}`)).toEqual([
      "team-a/api-report",
      "team-a/web-report",
      "team-b/audit",
      "team-b/db-report",
      "team-b/trivy-db",
    ]);
    expect(reports.items[1]).toMatchObject({
      source: "kyverno",
      labels: { team: "a" },
      pass: 1,
      fail: 1,
      warn: 1,
      error: 0,
    });
    const labelled = await get<Paginated<PolicyReportSummary>>(
      "/v1/policy-reports?labels=team:b&sources=trivy",
    );
    expect(labelled.items.map((r) => r.name)).toEqual(["trivy-db"]);
    const cluster = await get<Paginated<PolicyReportSummary>>("/v1/cluster-policy-reports");
    expect(cluster.items).toEqual([
      expect.objectContaining({ name: "ns-labels", source: "kyverno", pass: 1, fail: 1 }),
    ]);
    expect(cluster.items[0]?.namespace).toBeUndefined();
  });

  it.each([
    ["/v2/namespace-scoped/results?page=0", "page"],
    ["/v2/namespace-scoped/results?page=1&offset=abc", "offset"],
    ["/v2/namespace-scoped/results?page=1e300", "page must be <= 1000000000"],
    ["/v1/namespaced-resources/results?page=1e300&offset=10", "page must be <= 1000000000"],
    ["/v2/namespace-scoped/resource-results?page=1e300", "page must be <= 1000000000"],
    ["/v1/policy-reports?page=1e300", "page must be <= 1000000000"],
    ["/v2/namespace-scoped/results?page=1.5", "page must be integer"],
    ["/v2/namespace-scoped/results?page=-1", "page must be >= 1"],
    ["/v2/namespace-scoped/results?page=Infinity", "page must be a finite number"],
    ["/v2/namespace-scoped/results?page=1&offset=-Infinity", "offset must be"],
    ["/v2/namespace-scoped/results?page=NaN", "page must be integer"],
    ["/v2/namespace-scoped/results?page=1&offset=1e300", "offset must be <= 1000"],
    ["/v2/namespace-scoped/results?page=1&offset=0", "offset must be >= 1"],
    ["/v2/findings?status=bogus", "status"],
    ["/v2/findings?severities=urgent", "severities"],
    ["/v2/namespace-scoped/results?page=1&direction=up", "direction"],
    ["/v2/namespace-scoped/results?page=1&sortBy=colour", "sortBy"],
    ["/v1/policy-reports?labels=nocolon", "labels"],
  ])("answers %s with a 400 naming %s", async (url, parameter) => {
    const res = await api.app.inject({ url });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ message: string }>().message).toContain(parameter);
  });
});
