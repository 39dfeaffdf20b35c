/**
 * The custom resource definitions the playground installs: Kyverno's policy kinds and the
 * `wgpolicyk8s.io` reports, with upstream's names, scopes, versions, short names and printer
 * columns, but open schemas (`x-kubernetes-preserve-unknown-fields`). Policies are still checked
 * field by field: the admission controller's policy validation webhook rejects invalid ones, as in a
 * cluster. The full upstream CRDs (1.4 MB each for the policy kinds) belong in the Helm chart.
 */
import type { JsonObject } from "@kyverno-ts/api";

interface CrdSpec {
  group: string;
  kind: string;
  plural: string;
  shortNames: readonly string[];
  scope: "Cluster" | "Namespaced";
  /** Served versions; the first one is stored. */
  versions: readonly string[];
  columns: Array<{ name: string; type: string; jsonPath: string; priority?: number }>;
  categories?: readonly string[];
  status?: boolean;
  /** Defaults of `spec` fields, as upstream's schema sets them. */
  specDefaults?: Record<string, boolean>;
}

const POLICY_COLUMNS: CrdSpec["columns"] = [
  { name: "ADMISSION", type: "boolean", jsonPath: ".spec.admission" },
  { name: "BACKGROUND", type: "boolean", jsonPath: ".spec.background" },
  { name: "READY", type: "string", jsonPath: '.status.conditions[?(@.type == "Ready")].status' },
  { name: "AGE", type: "date", jsonPath: ".metadata.creationTimestamp" },
  { name: "FAILURE POLICY", type: "string", jsonPath: ".spec.failurePolicy", priority: 1 },
  { name: "VALIDATE", type: "integer", jsonPath: ".status.rulecount.validate", priority: 1 },
  { name: "MUTATE", type: "integer", jsonPath: ".status.rulecount.mutate", priority: 1 },
  { name: "GENERATE", type: "integer", jsonPath: ".status.rulecount.generate", priority: 1 },
  { name: "MESSAGE", type: "string", jsonPath: '.status.conditions[?(@.type == "Ready")].message' },
];

const REPORT_COLUMNS: CrdSpec["columns"] = [
  { name: "Kind", type: "string", jsonPath: ".scope.kind" },
  { name: "Name", type: "string", jsonPath: ".scope.name" },
  { name: "Pass", type: "integer", jsonPath: ".summary.pass" },
  { name: "Fail", type: "integer", jsonPath: ".summary.fail" },
  { name: "Warn", type: "integer", jsonPath: ".summary.warn" },
  { name: "Error", type: "integer", jsonPath: ".summary.error" },
  { name: "Skip", type: "integer", jsonPath: ".summary.skip" },
  { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
];

/** What ClusterPolicy and Policy share. */
const POLICY_KINDS = {
  group: "kyverno.io",
  versions: ["v1", "v2beta1"],
  columns: POLICY_COLUMNS,
  categories: ["kyverno"],
  status: true,
  specDefaults: { admission: true, background: true },
} as const;

const SPECS: CrdSpec[] = [
  {
    ...POLICY_KINDS,
    kind: "ClusterPolicy",
    plural: "clusterpolicies",
    shortNames: ["cpol"],
    scope: "Cluster",
  },
  {
    ...POLICY_KINDS,
    kind: "Policy",
    plural: "policies",
    shortNames: ["pol"],
    scope: "Namespaced",
  },
  {
    group: "kyverno.io",
    kind: "PolicyException",
    plural: "policyexceptions",
    shortNames: ["polex"],
    scope: "Namespaced",
    versions: ["v2", "v2beta1"],
    columns: [{ name: "AGE", type: "date", jsonPath: ".metadata.creationTimestamp" }],
    categories: ["kyverno"],
  },
  {
    group: "kyverno.io",
    kind: "UpdateRequest",
    plural: "updaterequests",
    shortNames: ["ur"],
    scope: "Namespaced",
    versions: ["v2"],
    columns: [
      { name: "Policy", type: "string", jsonPath: ".spec.policy" },
      { name: "RuleType", type: "string", jsonPath: ".spec.requestType" },
      { name: "ResourceKind", type: "string", jsonPath: ".spec.resource.kind" },
      { name: "ResourceName", type: "string", jsonPath: ".spec.resource.name" },
      { name: "ResourceNamespace", type: "string", jsonPath: ".spec.resource.namespace" },
      { name: "status", type: "string", jsonPath: ".status.state" },
      { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
    ],
    categories: ["kyverno"],
    status: true,
  },
  {
    group: "wgpolicyk8s.io",
    kind: "PolicyReport",
    plural: "policyreports",
    shortNames: ["polr"],
    scope: "Namespaced",
    versions: ["v1alpha2"],
    columns: REPORT_COLUMNS,
  },
  {
    group: "wgpolicyk8s.io",
    kind: "ClusterPolicyReport",
    plural: "clusterpolicyreports",
    shortNames: ["cpolr"],
    scope: "Cluster",
    versions: ["v1alpha2"],
    columns: REPORT_COLUMNS,
  },
  ...(
    [
      ["ClusterCleanupPolicy", "clustercleanuppolicies", "ccleanpol", "Cluster"],
      ["CleanupPolicy", "cleanuppolicies", "cleanpol", "Namespaced"],
    ] as const
  ).map(
    ([kind, plural, shortName, scope]): CrdSpec => ({
      group: "kyverno.io",
      kind,
      plural,
      shortNames: [shortName],
      scope,
      versions: ["v2", "v2beta1"],
      columns: [
        { name: "Schedule", type: "string", jsonPath: ".spec.schedule" },
        { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
      ],
      categories: ["kyverno"],
      status: true,
    }),
  ),
];

function schemaOf(spec: CrdSpec): JsonObject {
  const open = { type: "object", "x-kubernetes-preserve-unknown-fields": true };
  if (spec.specDefaults === undefined) return open;
  const properties = Object.fromEntries(
    Object.entries(spec.specDefaults).map(([field, value]) => [field, { type: "boolean", default: value }]),
  );
  return { ...open, properties: { spec: { ...open, properties } } };
}

function crdOf(spec: CrdSpec): JsonObject {
  const singular = spec.kind.toLowerCase();
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${spec.plural}.${spec.group}` },
    spec: {
      group: spec.group,
      scope: spec.scope,
      names: {
        kind: spec.kind,
        listKind: `${spec.kind}List`,
        plural: spec.plural,
        singular,
        shortNames: [...spec.shortNames],
        ...(spec.categories ? { categories: [...spec.categories] } : {}),
      },
      versions: spec.versions.map((name, i) => ({
        name,
        served: true,
        storage: i === 0,
        additionalPrinterColumns: spec.columns.map((c) => ({ ...c })),
        schema: { openAPIV3Schema: schemaOf(spec) },
        ...(spec.status ? { subresources: { status: {} } } : {}),
      })),
    },
  };
}

/** The CRDs of ClusterPolicy, Policy, PolicyException, UpdateRequest, PolicyReport and ClusterPolicyReport. */
export function playgroundCrds(): JsonObject[] {
  return SPECS.map(crdOf);
}
