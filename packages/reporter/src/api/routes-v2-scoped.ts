/**
 * The v2 `namespace-scoped/*` and `cluster-scoped/*` routes: kinds, per-resource result counts,
 * results (with and without resources), and status / severity counts of one source.
 */
import type { FastifyInstance } from "fastify";
import type { Scope } from "../store/types.js";
import type {
  ApiFilterQuery,
  ApiPaginationQuery,
  NamespaceSeverityCounts,
  NamespaceStatusCounts,
  Paginated,
  PolicyResult,
  ResourceResult,
  SeverityCounts,
  StatusCounts,
} from "./contract.js";
import {
  addStatus,
  emptySeverityCounts,
  emptyStatusCounts,
  scoped,
  severityKey,
  toPagination,
  toPolicyResult,
  toResourceResult,
} from "./map.js";
import type { RouteContext } from "./route-context.js";
import {
  filterQuery,
  paginated,
  resourceListQuery,
  responses,
  resultListQuery,
  sourceParams,
} from "./schemas.js";

type ListQuery = ApiFilterQuery & ApiPaginationQuery;
type SourceParams = { source: string };

/** Registers the scoped v2 routes. */
export function registerV2ScopedRoutes(app: FastifyInstance, { store }: RouteContext): void {
  for (const [prefix, scope] of [
    ["namespace-scoped", "namespaced"],
    ["cluster-scoped", "cluster"],
  ] as const satisfies readonly (readonly [string, Scope])[]) {
    app.get<{ Querystring: ApiFilterQuery }>(
      `/v2/${prefix}/kinds`,
      { schema: { querystring: filterQuery, response: { 200: responses.strings } } },
      async (req): Promise<string[]> => store.values("kind", scoped(req.query, scope)),
    );
    app.get<{ Querystring: ListQuery }>(
      `/v2/${prefix}/resource-results`,
      { schema: { querystring: resourceListQuery, response: { 200: paginated(responses.resourceResult) } } },
      async (req): Promise<Paginated<ResourceResult>> => {
        const page = await store.resourceCounts(scoped(req.query, scope), {
          byCategory: false,
          pagination: toPagination(req.query),
        });
        return { items: page.items.map((r) => toResourceResult(r, false)), count: page.count };
      },
    );
    for (const [path, withoutResource] of [
      ["results", false],
      ["results-without-resources", true],
    ] as const) {
      app.get<{ Querystring: ListQuery }>(
        `/v2/${prefix}/${path}`,
        { schema: { querystring: resultListQuery, response: { 200: paginated(responses.policyResult) } } },
        async (req): Promise<Paginated<PolicyResult>> => {
          const filter = scoped(req.query, scope, withoutResource ? { withoutResource } : {});
          const page = await store.results(filter, toPagination(req.query));
          return { items: page.items.map(toPolicyResult), count: page.count };
        },
      );
    }
  }

  app.get<{ Querystring: ApiFilterQuery; Params: SourceParams }>(
    "/v2/namespace-scoped/:source/status-counts",
    {
      schema: {
        querystring: filterQuery,
        params: sourceParams,
        response: { 200: responses.namespaceStatusCounts },
      },
    },
    async (req): Promise<NamespaceStatusCounts> => {
      const filter = scoped(req.query, "namespaced", { sources: [req.params.source] });
      const out: NamespaceStatusCounts = {};
      for (const row of await store.countBy(["namespace", "status"], filter)) {
        const counts = out[row.namespace] ?? emptyStatusCounts();
        out[row.namespace] = counts;
        addStatus(counts, row.status, row.count);
      }
      return out;
    },
  );
  app.get<{ Querystring: ApiFilterQuery; Params: SourceParams }>(
    "/v2/namespace-scoped/:source/severity-counts",
    {
      schema: {
        querystring: filterQuery,
        params: sourceParams,
        response: { 200: responses.namespaceSeverityCounts },
      },
    },
    async (req): Promise<NamespaceSeverityCounts> => {
      const filter = scoped(req.query, "namespaced", { sources: [req.params.source] });
      const out: NamespaceSeverityCounts = {};
      for (const row of await store.countBy(["namespace", "severity"], filter)) {
        const counts = out[row.namespace] ?? emptySeverityCounts();
        out[row.namespace] = counts;
        counts[severityKey(row.severity)] += row.count;
      }
      return out;
    },
  );
  app.get<{ Querystring: ApiFilterQuery; Params: SourceParams }>(
    "/v2/cluster-scoped/:source/status-counts",
    { schema: { querystring: filterQuery, params: sourceParams, response: { 200: responses.statusCounts } } },
    async (req): Promise<StatusCounts> => {
      const counts = emptyStatusCounts();
      const filter = scoped(req.query, "cluster", { sources: [req.params.source] });
      for (const row of await store.countBy(["status"], filter)) addStatus(counts, row.status, row.count);
      return counts;
    },
  );
  app.get<{ Querystring: ApiFilterQuery; Params: SourceParams }>(
    "/v2/cluster-scoped/:source/severity-counts",
    {
      schema: { querystring: filterQuery, params: sourceParams, response: { 200: responses.severityCounts } },
    },
    async (req): Promise<SeverityCounts> => {
      const counts = emptySeverityCounts();
      const filter = scoped(req.query, "cluster", { sources: [req.params.source] });
      for (const row of await store.countBy(["severity"], filter))
        counts[severityKey(row.severity)] += row.count;
      return counts;
    },
  );
}
