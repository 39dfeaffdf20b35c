/**
 * JSON schemas of the API: query parameters (validated, so a bad value is a 400 naming it) and
 * response bodies (compiled into serializers when routes are registered). They mirror the types
 * of `contract.ts`.
 */
import { SEVERITIES, STATUSES } from "../model/types.js";
import { RESOURCE_SORT_KEYS, RESULT_SORT_KEYS } from "../store/types.js";

const name = { type: "string", maxLength: 512 } as const;
const list = { type: "array", items: name, maxItems: 200 } as const;
const integer = { type: "integer" } as const;
const text = { type: "string" } as const;
const strings = { type: "array", items: text } as const;
const stringMap = { type: "object", additionalProperties: text } as const;

const filterProperties = {
  namespaces: list,
  kinds: list,
  resources: list,
  sources: list,
  categories: list,
  severities: { type: "array", items: { type: "string", enum: [...SEVERITIES, "unknown"] }, maxItems: 10 },
  policies: list,
  rules: list,
  status: { type: "array", items: { type: "string", enum: [...STATUSES] }, maxItems: 10 },
  labels: { type: "array", items: { type: "string", pattern: "^[^:]+:.*$", maxLength: 640 }, maxItems: 50 },
  search: { type: "string", maxLength: 256 },
} as const;

function pagination(sortKeys: readonly string[]) {
  return {
    page: { type: "integer", minimum: 1 },
    offset: { type: "integer", minimum: 1, maximum: 1000 },
    sortBy: { type: "array", items: { type: "string", enum: [...sortKeys] }, maxItems: 12 },
    direction: { type: "string", enum: ["asc", "desc"] },
  } as const;
}

/** Query schema of filter-only endpoints. */
export const filterQuery = { type: "object", properties: filterProperties } as const;

/** Query schema of paginated result lists. */
export const resultListQuery = {
  type: "object",
  properties: { ...filterProperties, ...pagination(RESULT_SORT_KEYS) },
} as const;

/** Query schema of paginated resource lists. */
export const resourceListQuery = {
  type: "object",
  properties: { ...filterProperties, ...pagination(RESOURCE_SORT_KEYS) },
} as const;

/** Query schema of report lists. */
export const reportListQuery = {
  type: "object",
  properties: {
    namespaces: list,
    sources: list,
    labels: filterProperties.labels,
    search: filterProperties.search,
    ...pagination(["namespace", "name", "source"]),
  },
} as const;

/** Path parameters of `…/:source/…` routes. */
export const sourceParams = {
  type: "object",
  properties: { source: { type: "string", minLength: 1, maxLength: 512 } },
  required: ["source"],
} as const;
/** Path parameters of `/v2/resource/:id…`. */
export const idParams = {
  type: "object",
  properties: { id: { type: "string", minLength: 1, maxLength: 64 } },
  required: ["id"],
} as const;
/** Path parameters of `/v2/properties/:property`. */
export const propertyParams = {
  type: "object",
  properties: { property: { type: "string", minLength: 1, maxLength: 253 } },
  required: ["property"],
} as const;

const statusCountProperties = Object.fromEntries(STATUSES.map((s) => [s, integer]));
const severityCountProperties = Object.fromEntries([...SEVERITIES, "unknown"].map((s) => [s, integer]));

/** StatusCounts. */
export const statusCounts = {
  type: "object",
  properties: statusCountProperties,
  required: [...STATUSES],
} as const;
/** SeverityCounts. */
export const severityCounts = {
  type: "object",
  properties: severityCountProperties,
  required: [...SEVERITIES, "unknown"],
} as const;

/** Response schemas by contract type. */
export const responses = {
  strings,
  statusCounts,
  severityCounts,
  namespaceStatusCounts: { type: "object", additionalProperties: statusCounts },
  namespaceSeverityCounts: { type: "object", additionalProperties: severityCounts },
  health: { type: "object", properties: { status: text, error: text }, required: ["status"] },
  targets: {
    type: "array",
    items: {
      type: "object",
      properties: {
        name: text,
        type: text,
        minimumSeverity: text,
        sources: strings,
        skipExistingOnStartup: { type: "boolean" },
      },
    },
  },
  resource: {
    type: "object",
    properties: { id: text, uid: text, name: text, namespace: text, kind: text, apiVersion: text },
    required: ["id", "uid", "name", "kind", "apiVersion"],
  },
  policyResult: {
    type: "object",
    properties: {
      id: text,
      namespace: text,
      kind: text,
      apiVersion: text,
      name: text,
      resourceId: text,
      message: text,
      category: text,
      policy: text,
      rule: text,
      status: text,
      source: text,
      severity: text,
      timestamp: integer,
      properties: stringMap,
    },
    required: [
      "id",
      "kind",
      "apiVersion",
      "name",
      "resourceId",
      "message",
      "category",
      "policy",
      "rule",
      "status",
    ],
  },
  reportSummary: {
    type: "object",
    properties: {
      id: text,
      name: text,
      namespace: text,
      source: text,
      labels: stringMap,
      ...statusCountProperties,
    },
    required: ["id", "name", "source", "labels", ...STATUSES],
  },
  resourceResult: {
    type: "object",
    properties: {
      id: text,
      uid: text,
      name: text,
      namespace: text,
      kind: text,
      apiVersion: text,
      source: text,
      category: text,
      ...statusCountProperties,
    },
    required: ["id", "uid", "name", "kind", "apiVersion", "source", ...STATUSES],
  },
  sourceCategoryTree: {
    type: "array",
    items: {
      type: "object",
      properties: {
        name: text,
        categories: {
          type: "array",
          items: { type: "object", properties: { name: text, ...statusCountProperties } },
        },
      },
    },
  },
  namespacedStatusCounts: {
    type: "array",
    items: {
      type: "object",
      properties: {
        status: text,
        items: { type: "array", items: { type: "object", properties: { namespace: text, count: integer } } },
      },
    },
  },
  clusterStatusCounts: {
    type: "array",
    items: { type: "object", properties: { status: text, count: integer } },
  },
  resourceStatusCounts: {
    type: "array",
    items: { type: "object", properties: { source: text, ...statusCountProperties } },
  },
  resourceSeverityCounts: {
    type: "array",
    items: { type: "object", properties: { source: text, ...severityCountProperties } },
  },
  policies: {
    type: "array",
    items: {
      type: "object",
      properties: { source: text, category: text, policy: text, severity: text, results: statusCounts },
    },
  },
  findings: {
    type: "object",
    properties: {
      total: integer,
      perResult: { type: "object", additionalProperties: integer },
      counts: {
        type: "array",
        items: {
          type: "object",
          properties: {
            source: text,
            total: integer,
            counts: { type: "object", additionalProperties: integer },
          },
        },
      },
    },
  },
} as const;

const policySummaryProperties = {
  kind: text,
  name: text,
  namespace: text,
  policy: text,
  title: text,
  description: text,
  category: text,
  severity: text,
} as const;
const policySummaryRequired = ["kind", "name", "policy", "title"];

/** Path parameters of `/v2/policy-details/:name` and `/v2/policy-details/:namespace/:name`. */
export const policyDetailsParams = {
  type: "object",
  properties: {
    namespace: { type: "string", minLength: 1, maxLength: 63 },
    name: { type: "string", minLength: 1, maxLength: 253 },
  },
  required: ["name"],
} as const;

/** `/v2/policy-details` (PolicyDetailsList) and `/v2/policy-details/…` (PolicyDetails). */
export const policyDetailsResponses = {
  list: {
    type: "object",
    properties: {
      watched: strings,
      items: {
        type: "array",
        items: { type: "object", properties: policySummaryProperties, required: policySummaryRequired },
      },
    },
    required: ["watched", "items"],
  },
  details: {
    type: "object",
    properties: {
      ...policySummaryProperties,
      engine: {
        type: "object",
        properties: { name: text, version: text, kubernetesVersion: text, subjects: strings },
        required: ["name", "subjects"],
      },
      background: { type: "boolean" },
      validationFailureAction: text,
      failureActions: strings,
      rules: {
        type: "array",
        items: {
          type: "object",
          properties: { name: text, type: text, failureAction: text },
          required: ["name", "type"],
        },
      },
      code: {
        type: "object",
        properties: { contentType: text, content: text, truncated: { type: "boolean" } },
        required: ["contentType", "content", "truncated"],
      },
    },
    required: [
      ...policySummaryRequired,
      "engine",
      "background",
      "validationFailureAction",
      "failureActions",
      "rules",
      "code",
    ],
  },
} as const;

/** A `{items, count}` page of `item`. */
export function paginated(item: object) {
  return { type: "object", properties: { items: { type: "array", items: item }, count: integer } } as const;
}

/** A list of `item`. */
export function arrayOf(item: object) {
  return { type: "array", items: item } as const;
}
