/**
 * The v1 API: targets, namespaces, report lists, and the `namespaced-resources/*` /
 * `cluster-resources/*` lists, status counts and results.
 */
import type { FastifyInstance } from "fastify";
import { STATUSES } from "../model/types.js";
import type { Dimension, Scope } from "../store/types.js";
import type {
  ApiFilterQuery,
  ApiPaginationQuery,
  ClusterStatusCount,
  NamespacedStatusCount,
  Paginated,
  PolicyReportSummary,
  PolicyResult,
  Resource,
} from "./contract.js";
import { scoped, toFilter, toPagination, toPolicyResult, toResource } from "./map.js";
import type { RouteContext } from "./route-context.js";
import { arrayOf, filterQuery, paginated, reportListQuery, responses, resultListQuery } from "./schemas.js";

type ListQuery = ApiFilterQuery & ApiPaginationQuery;
type ReportQuery = Pick<ApiFilterQuery, "namespaces" | "sources" | "labels" | "search"> & ApiPaginationQuery;

const LISTS: Record<string, Dimension> = {
  sources: "source",
  categories: "category",
  policies: "policy",
  rules: "rule",
  kinds: "kind",
};

/** Registers the v1 routes. */
export function registerV1Routes(app: FastifyInstance, { store, targets }: RouteContext): void {
  app.get("/v1/targets", { schema: { response: { 200: responses.targets } } }, async () => targets());

  app.get<{ Querystring: ApiFilterQuery }>(
    "/v1/namespaces",
    { schema: { querystring: filterQuery, response: { 200: responses.strings } } },
    async (req): Promise<string[]> => store.values("namespace", scoped(req.query, "namespaced")),
  );

  for (const [path, scope] of [
    ["policy-reports", "namespaced"],
    ["cluster-policy-reports", "cluster"],
  ] as const) {
    app.get<{ Querystring: ReportQuery }>(
      `/v1/${path}`,
      { schema: { querystring: reportListQuery, response: { 200: paginated(responses.reportSummary) } } },
      async (req): Promise<Paginated<PolicyReportSummary>> => {
        const q = req.query;
        const page = await store.reports(
          {
            scope,
            ...(q.namespaces ? { namespaces: q.namespaces } : {}),
            ...(q.sources ? { sources: q.sources } : {}),
            ...(q.labels ? { labels: q.labels } : {}),
            ...(q.search ? { search: q.search } : {}),
          },
          toPagination(q),
        );
        return {
          count: page.count,
          items: page.items.map((r) => ({
            id: r.id,
            name: r.name,
            ...(r.namespace ? { namespace: r.namespace } : {}),
            source: r.source,
            labels: r.labels,
            pass: r.pass,
            fail: r.fail,
            warn: r.warn,
            error: r.error,
            skip: r.skip,
          })),
        };
      },
    );
  }

  for (const [prefix, scope] of [
    ["namespaced-resources", "namespaced"],
    ["cluster-resources", "cluster"],
  ] as const satisfies readonly (readonly [string, Scope])[]) {
    for (const [path, dimension] of Object.entries(LISTS)) {
      app.get<{ Querystring: ApiFilterQuery }>(
        `/v1/${prefix}/${path}`,
        { schema: { querystring: filterQuery, response: { 200: responses.strings } } },
        async (req): Promise<string[]> => store.values(dimension, scoped(req.query, scope)),
      );
    }
    app.get<{ Querystring: ApiFilterQuery }>(
      `/v1/${prefix}/resources`,
      { schema: { querystring: filterQuery, response: { 200: arrayOf(responses.resource) } } },
      async (req): Promise<Resource[]> => (await store.resources(scoped(req.query, scope))).map(toResource),
    );
    app.get<{ Querystring: ListQuery }>(
      `/v1/${prefix}/results`,
      { schema: { querystring: resultListQuery, response: { 200: paginated(responses.policyResult) } } },
      async (req): Promise<Paginated<PolicyResult>> => {
        const page = await store.results(scoped(req.query, scope), toPagination(req.query));
        return { items: page.items.map(toPolicyResult), count: page.count };
      },
    );
  }

  app.get<{ Querystring: ApiFilterQuery }>(
    "/v1/namespaced-resources/status-counts",
    { schema: { querystring: filterQuery, response: { 200: responses.namespacedStatusCounts } } },
    async (req): Promise<NamespacedStatusCount[]> => {
      const rows = await store.countBy(["status", "namespace"], scoped(req.query, "namespaced"));
      const statuses = req.query.status?.length ? req.query.status : STATUSES;
      return statuses.map((status) => ({
        status,
        items: rows
          .filter((r) => r.status === status)
          .map((r) => ({ namespace: r.namespace, count: r.count })),
      }));
    },
  );
  app.get<{ Querystring: ApiFilterQuery }>(
    "/v1/cluster-resources/status-counts",
    { schema: { querystring: filterQuery, response: { 200: responses.clusterStatusCounts } } },
    async (req): Promise<ClusterStatusCount[]> => {
      const rows = await store.countBy(["status"], toFilter(req.query, { scope: "cluster" }));
      const statuses = req.query.status?.length ? req.query.status : STATUSES;
      return statuses.map((status) => ({ status, count: rows.find((r) => r.status === status)?.count ?? 0 }));
    },
  );
}
