/**
 * The queries each page makes as soon as it renders, by route: the entry module preloads them
 * (`preloadRoute`) before React renders the first frame, and the views adopt the running requests
 * (same keys, built by `view-queries`). Queries that need an answer first (a resource's, once it
 * is loaded) are listed when their input is in the URL already.
 */
import { matchPath } from "react-router";
import type { ApiClient } from "../api/client.ts";
import { preload, type QuerySpec } from "../api/query-cache.ts";
import { ROUTES } from "../components/links.ts";
import { type Filters, parseFilters, readPage, toApiFilter } from "../filters/filter-state.ts";
import { queries } from "./view-queries.ts";

/** A page's queries from its path parameters, filters and URL query string. */
type PageQueries = (
  api: ApiClient,
  params: Readonly<Record<string, string | undefined>>,
  filters: Filters,
  search: URLSearchParams,
) => QuerySpec<unknown>[];

const page = (search: URLSearchParams, id: string) => readPage(search, id);

const PAGES: ReadonlyArray<readonly [string, PageQueries]> = [
  [
    ROUTES.dashboard,
    (api, _, filters, search) => {
      const filter = toApiFilter(filters);
      return [
        queries.findings(api, filter),
        queries.severityFindings(api, filter),
        queries.namespaceCounts(api, filter),
        queries.results(api, { scope: "cluster" }, filter, page(search, "c")),
        queries.resourceResults(api, "namespace", filter, page(search, "r")),
      ];
    },
  ],
  [
    ROUTES.source,
    (api, { source = "" }, filters, search) => {
      const filter = toApiFilter(filters, { sources: [source] });
      return [
        queries.sourceStatus(api, source, filter),
        queries.sourceSeverity(api, source, filter),
        queries.sourceCategories(api, filter),
        queries.namespaceCounts(api, filter),
        queries.resourceResults(api, "namespace", filter, page(search, "r")),
        queries.results(api, { scope: "cluster" }, filter, page(search, "c")),
      ];
    },
  ],
  [ROUTES.namespaces, (api, _, filters) => [queries.namespaceCounts(api, toApiFilter(filters))]],
  [
    ROUTES.namespace,
    (api, { namespace = "" }, filters, search) => {
      const filter = toApiFilter(filters, { namespaces: [namespace] });
      return [
        queries.findings(api, filter),
        queries.severityFindings(api, filter),
        queries.resourceResults(api, "namespace", filter, page(search, "r")),
        queries.results(api, { scope: "namespace" }, filter, page(search, "n")),
      ];
    },
  ],
  [
    ROUTES.resource,
    (api, { id = "" }, filters, search) => {
      const filter = toApiFilter(filters);
      return [
        queries.resource(api, id),
        queries.resourceTree(api, id, filter),
        queries.results(api, { resourceId: id }, filter, page(search, "p")),
        queries.exceptionResults(api, id),
      ];
    },
  ],
  [ROUTES.policies, (api, _, filters) => [queries.policies(api, toApiFilter(filters))]],
  [
    ROUTES.policy,
    (api, { source = "", policy = "" }, filters, search) => {
      const filter = toApiFilter(filters, { sources: [source], policies: [policy] });
      return [
        ...(source.toLowerCase() === "kyverno" ? [queries.policyDetails(api, policy)] : []),
        queries.policies(api, filter),
        queries.namespaceCounts(api, filter),
        queries.results(api, { scope: "namespace" }, filter, page(search, "n")),
        queries.results(api, { scope: "cluster" }, filter, page(search, "c")),
      ];
    },
  ],
  [ROUTES.targets, (api) => [queries.targets(api)]],
];

/** Decodes each path segment as the router does before matching (an encoded `/` stays `%2F`). */
function decodePath(path: string): string {
  return path
    .split("/")
    .map((segment) => {
      try {
        return decodeURIComponent(segment).replace(/\//g, "%2F");
      } catch {
        return segment;
      }
    })
    .join("/");
}

/** The queries the page at `hash` (`#/path?query`) makes on its first render, the shell's included. */
export function routeQueries(api: ApiClient, hash: string): QuerySpec<unknown>[] {
  const route = hash.replace(/^#/, "") || "/";
  const q = route.indexOf("?");
  const pathname = decodePath(q >= 0 ? route.slice(0, q) : route);
  const search = new URLSearchParams(q >= 0 ? route.slice(q + 1) : "");
  const shell = [queries.sources(api)];
  for (const [pattern, build] of PAGES) {
    const match = matchPath(pattern, pathname);
    if (match) return [...shell, ...build(api, match.params, parseFilters(search), search)];
  }
  return shell;
}

/** Starts the requests of the page at `hash`; the views adopt them as they render. */
export function preloadRoute(api: ApiClient, hash: string): void {
  for (const query of routeQueries(api, hash)) preload(query.key, query.call);
}
