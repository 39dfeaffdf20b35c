/**
 * The schemas the routes register: query and path parameters (validated, so a bad value is a 400
 * naming it) and response bodies (compiled into serializers when routes are registered). Response
 * and query shapes come from `contract.ts`, where each is written once with its type.
 */
import { RESOURCE_SORT_KEYS, RESULT_SORT_KEYS } from "../store/types.js";
import {
  clusterStatusCountSchema,
  filterQuerySchema,
  findingsSchema,
  healthSchema,
  namespacedStatusCountSchema,
  paginatedSchema,
  paginationQuerySchema,
  policyResultSchema,
  policySchema,
  reportSummarySchema,
  resourceResultSchema,
  resourceSchema,
  resourceSeverityCountSchema,
  resourceStatusCountSchema,
  severityCountsSchema,
  sourceCategoryTreeSchema,
  statusCountsSchema,
  targetSchema,
} from "./contract.js";
import { policyDetailsListSchema, policyDetailsSchema } from "./contract-policy-details.js";
import { type JsonSchema, j } from "./json-schema.js";

const filters = filterQuerySchema.properties;

/** Query schema of filter-only endpoints. */
export const filterQuery = filterQuerySchema;

/** Query schema of paginated result lists. */
export const resultListQuery = j.object({
  ...filters,
  ...paginationQuerySchema(RESULT_SORT_KEYS).properties,
});

/** Query schema of paginated resource lists. */
export const resourceListQuery = j.object({
  ...filters,
  ...paginationQuerySchema(RESOURCE_SORT_KEYS).properties,
});

/** Query schema of report lists. */
export const reportListQuery = j.object({
  namespaces: filters.namespaces,
  sources: filters.sources,
  labels: filters.labels,
  search: filters.search,
  ...paginationQuerySchema(["namespace", "name", "source"]).properties,
});

/** Path parameters of `…/:source/…` routes. */
export const sourceParams = j.object({ source: j.string({ minLength: 1, maxLength: 512 }) });
/** Path parameters of `/v2/resource/:id…`. */
export const idParams = j.object({ id: j.string({ minLength: 1, maxLength: 64 }) });
/** Path parameters of `/v2/properties/:property`. */
export const propertyParams = j.object({ property: j.string({ minLength: 1, maxLength: 253 }) });
/** Path parameters of `/v2/policy-details/:name` and `/v2/policy-details/:namespace/:name`. */
export const policyDetailsParams = j.object({
  namespace: j.optional(j.string({ minLength: 1, maxLength: 63 })),
  name: j.string({ minLength: 1, maxLength: 253 }),
});

/** Response schemas by contract type. */
export const responses = {
  strings: j.array(j.string()),
  statusCounts: statusCountsSchema,
  severityCounts: severityCountsSchema,
  namespaceStatusCounts: j.record(statusCountsSchema),
  namespaceSeverityCounts: j.record(severityCountsSchema),
  health: healthSchema,
  targets: j.array(targetSchema),
  resource: resourceSchema,
  policyResult: policyResultSchema,
  reportSummary: reportSummarySchema,
  resourceResult: resourceResultSchema,
  sourceCategoryTree: j.array(sourceCategoryTreeSchema),
  namespacedStatusCounts: j.array(namespacedStatusCountSchema),
  clusterStatusCounts: j.array(clusterStatusCountSchema),
  resourceStatusCounts: j.array(resourceStatusCountSchema),
  resourceSeverityCounts: j.array(resourceSeverityCountSchema),
  policies: j.array(policySchema),
  findings: findingsSchema(),
};

/** `/v2/policy-details` (PolicyDetailsList) and `/v2/policy-details/…` (PolicyDetails). */
export const policyDetailsResponses = { list: policyDetailsListSchema, details: policyDetailsSchema };

/** A `{items, count}` page of `item`. */
export function paginated<T>(item: JsonSchema<T>) {
  return paginatedSchema(item);
}

/** A list of `item`. */
export function arrayOf<T>(item: JsonSchema<T>): JsonSchema<T[]> {
  return j.array(item);
}
