/**
 * The v2 `resource/:id` routes: one resource's details, its counts per source (by status and by
 * severity), per source and category, its results, and its source → category tree.
 */
import type { FastifyInstance } from "fastify";
import type {
  ApiFilterQuery,
  ApiPaginationQuery,
  Paginated,
  PolicyResult,
  Resource,
  ResourceResult,
  ResourceSeverityCount,
  ResourceStatusCount,
  SourceCategoryTree,
} from "./contract.js";
import {
  addStatus,
  emptySeverityCounts,
  emptyStatusCounts,
  entryOf,
  severityKey,
  toFilter,
  toPagination,
  toPolicyResult,
  toResource,
  toResourceResult,
  toSourceCategoryTree,
} from "./map.js";
import type { RouteContext } from "./route-context.js";
import { arrayOf, filterQuery, idParams, paginated, responses, resultListQuery } from "./schemas.js";

type ListQuery = ApiFilterQuery & ApiPaginationQuery;
type IdParams = { id: string };

/** Registers the resource routes. */
export function registerV2ResourceRoutes(app: FastifyInstance, { store }: RouteContext): void {
  app.get<{ Params: IdParams }>(
    "/v2/resource/:id",
    { schema: { params: idParams, response: { 200: responses.resource } } },
    async (req, reply): Promise<Resource | undefined> => {
      const resource = await store.resource(req.params.id);
      if (resource) return toResource(resource);
      return reply
        .code(404)
        .send({ statusCode: 404, error: "Not Found", message: `resource ${req.params.id} not found` });
    },
  );
  app.get<{ Querystring: ApiFilterQuery; Params: IdParams }>(
    "/v2/resource/:id/status-counts",
    {
      schema: {
        querystring: filterQuery,
        params: idParams,
        response: { 200: responses.resourceStatusCounts },
      },
    },
    async (req): Promise<ResourceStatusCount[]> => {
      const rows = await store.countBy(
        ["source", "status"],
        toFilter(req.query, { resourceId: req.params.id }),
      );
      const out = new Map<string, ResourceStatusCount>();
      for (const row of rows) {
        const entry = entryOf(out, row.source, () => ({ source: row.source, ...emptyStatusCounts() }));
        addStatus(entry, row.status, row.count);
      }
      return [...out.values()];
    },
  );
  app.get<{ Querystring: ApiFilterQuery; Params: IdParams }>(
    "/v2/resource/:id/severity-counts",
    {
      schema: {
        querystring: filterQuery,
        params: idParams,
        response: { 200: responses.resourceSeverityCounts },
      },
    },
    async (req): Promise<ResourceSeverityCount[]> => {
      const rows = await store.countBy(
        ["source", "severity"],
        toFilter(req.query, { resourceId: req.params.id }),
      );
      const out = new Map<string, ResourceSeverityCount>();
      for (const row of rows) {
        const entry = entryOf(out, row.source, () => ({ source: row.source, ...emptySeverityCounts() }));
        entry[severityKey(row.severity)] += row.count;
      }
      return [...out.values()];
    },
  );
  app.get<{ Querystring: ApiFilterQuery; Params: IdParams }>(
    "/v2/resource/:id/resource-results",
    {
      schema: {
        querystring: filterQuery,
        params: idParams,
        response: { 200: arrayOf(responses.resourceResult) },
      },
    },
    async (req): Promise<ResourceResult[]> => {
      const page = await store.resourceCounts(toFilter(req.query, { resourceId: req.params.id }), {
        byCategory: true,
      });
      return page.items.map((r) => toResourceResult(r, true));
    },
  );
  app.get<{ Querystring: ListQuery; Params: IdParams }>(
    "/v2/resource/:id/results",
    {
      schema: {
        querystring: resultListQuery,
        params: idParams,
        response: { 200: paginated(responses.policyResult) },
      },
    },
    async (req): Promise<Paginated<PolicyResult>> => {
      const page = await store.results(
        toFilter(req.query, { resourceId: req.params.id }),
        toPagination(req.query),
      );
      return { items: page.items.map(toPolicyResult), count: page.count };
    },
  );
  app.get<{ Querystring: ApiFilterQuery; Params: IdParams }>(
    "/v2/resource/:id/source-categories",
    {
      schema: { querystring: filterQuery, params: idParams, response: { 200: responses.sourceCategoryTree } },
    },
    async (req): Promise<SourceCategoryTree[]> =>
      toSourceCategoryTree(
        await store.countBy(
          ["source", "category", "status"],
          toFilter(req.query, { resourceId: req.params.id }),
        ),
      ),
  );
}
