/**
 * The v2 dashboard API: namespaces, sources (with categories and counts), policies, findings by
 * status and by severity, targets and property values. All served from pre-aggregated counts
 * unless a filter needs the result rows.
 */
import type { FastifyInstance } from "fastify";
import type {
  ApiFilterQuery,
  ApiStatus,
  FindingCounts,
  Findings,
  Policy,
  SeverityCounts,
  SourceCategoryTree,
  StatusCounts,
} from "./contract.js";
import {
  addStatus,
  emptySeverityCounts,
  emptyStatusCounts,
  entryOf,
  severityKey,
  toFilter,
  toSourceCategoryTree,
} from "./map.js";
import type { RouteContext } from "./route-context.js";
import { filterQuery, propertyParams, responses, sourceParams } from "./schemas.js";

type SourceParams = { source: string };

/** Builds findings from (source, key, count) rows, every key present in `perResult` and per source. */
function findings<K extends string>(
  rows: readonly { source: string; key: K; count: number }[],
  empty: () => Record<K, number>,
): Findings<K> {
  const perResult = empty();
  const bySource = new Map<string, FindingCounts<K>>();
  let total = 0;
  for (const row of rows) {
    const entry = entryOf(bySource, row.source, () => ({ source: row.source, total: 0, counts: empty() }));
    entry.counts[row.key] += row.count;
    entry.total += row.count;
    perResult[row.key] += row.count;
    total += row.count;
  }
  return { total, perResult, counts: [...bySource.values()] };
}

/** Registers the v2 dashboard routes. */
export function registerV2Routes(app: FastifyInstance, { store, targets }: RouteContext): void {
  app.get("/v2/targets", { schema: { response: { 200: responses.targets } } }, async () => targets());

  app.get<{ Querystring: ApiFilterQuery }>(
    "/v2/namespaces",
    { schema: { querystring: filterQuery, response: { 200: responses.strings } } },
    async (req): Promise<string[]> => store.values("namespace", toFilter(req.query, { scope: "namespaced" })),
  );
  app.get<{ Querystring: ApiFilterQuery }>(
    "/v2/sources",
    { schema: { querystring: filterQuery, response: { 200: responses.strings } } },
    async (req): Promise<string[]> => store.values("source", toFilter(req.query)),
  );
  app.get<{ Querystring: ApiFilterQuery }>(
    "/v2/sources/categories",
    { schema: { querystring: filterQuery, response: { 200: responses.sourceCategoryTree } } },
    async (req): Promise<SourceCategoryTree[]> =>
      toSourceCategoryTree(await store.countBy(["source", "category", "status"], toFilter(req.query))),
  );
  app.get<{ Querystring: ApiFilterQuery; Params: SourceParams }>(
    "/v2/sources/:source/status-counts",
    { schema: { querystring: filterQuery, params: sourceParams, response: { 200: responses.statusCounts } } },
    async (req): Promise<StatusCounts> => {
      const counts = emptyStatusCounts();
      const filter = toFilter(req.query, { sources: [req.params.source] });
      for (const row of await store.countBy(["status"], filter)) addStatus(counts, row.status, row.count);
      return counts;
    },
  );
  app.get<{ Querystring: ApiFilterQuery; Params: SourceParams }>(
    "/v2/sources/:source/severity-counts",
    {
      schema: { querystring: filterQuery, params: sourceParams, response: { 200: responses.severityCounts } },
    },
    async (req): Promise<SeverityCounts> => {
      const counts = emptySeverityCounts();
      const filter = toFilter(req.query, { sources: [req.params.source] });
      for (const row of await store.countBy(["severity"], filter))
        counts[severityKey(row.severity)] += row.count;
      return counts;
    },
  );

  app.get<{ Querystring: ApiFilterQuery }>(
    "/v2/policies",
    { schema: { querystring: filterQuery, response: { 200: responses.policies } } },
    async (req): Promise<Policy[]> => {
      const policies: Policy[] = (await store.policyCounts(toFilter(req.query))).map((row) => ({
        source: row.source,
        category: row.category,
        policy: row.policy,
        ...(row.severity ? { severity: row.severity } : {}),
        results: row.results,
      }));
      const order = (a: Policy, b: Policy) =>
        a.policy < b.policy
          ? -1
          : a.policy > b.policy
            ? 1
            : a.source < b.source
              ? -1
              : a.source > b.source
                ? 1
                : 0;
      return policies.sort(order);
    },
  );

  app.get<{ Querystring: ApiFilterQuery }>(
    "/v2/findings",
    { schema: { querystring: filterQuery, response: { 200: responses.findings } } },
    async (req): Promise<Findings<ApiStatus>> => {
      const rows = await store.countBy(["source", "status"], toFilter(req.query));
      return findings(
        rows.map((r) => ({ source: r.source, key: r.status as ApiStatus, count: r.count })),
        emptyStatusCounts,
      );
    },
  );
  app.get<{ Querystring: ApiFilterQuery }>(
    "/v2/severity-findings",
    { schema: { querystring: filterQuery, response: { 200: responses.findings } } },
    async (req): Promise<Findings<keyof SeverityCounts>> => {
      const rows = await store.countBy(["source", "severity"], toFilter(req.query));
      return findings(
        rows.map((r) => ({ source: r.source, key: severityKey(r.severity), count: r.count })),
        emptySeverityCounts,
      );
    },
  );

  app.get<{ Querystring: ApiFilterQuery; Params: { property: string } }>(
    "/v2/properties/:property",
    { schema: { querystring: filterQuery, params: propertyParams, response: { 200: responses.strings } } },
    async (req): Promise<string[]> => store.propertyValues(req.params.property, toFilter(req.query)),
  );
}
