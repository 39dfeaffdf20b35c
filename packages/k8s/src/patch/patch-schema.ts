/**
 * Strategic-merge facts for the built-in kinds mutate policies patch, written by hand from the
 * Kubernetes API types (`patchStrategy:"merge"` / `patchMergeKey` tags). Any list not listed here is
 * replaced by the patch, as for custom resources without a schema.
 */

/** How a patch merges into one field; `items` describes the elements of a list. */
export interface PatchSchema {
  readonly fields?: Readonly<Record<string, PatchSchema>>;
  /** Lists of maps merged element by element, matched on this key. */
  readonly mergeKey?: string;
  /** Lists of scalars merged as a set (e.g. `metadata.finalizers`). */
  readonly mergePrimitives?: boolean;
  readonly items?: PatchSchema;
}

/** How a list field merges. */
export type ListStrategy =
  | { readonly kind: "replace" }
  | { readonly kind: "primitives" }
  | { readonly kind: "keyed"; readonly key: string };

const EMPTY: PatchSchema = {};

const byName = (items?: PatchSchema): PatchSchema =>
  items === undefined ? { mergeKey: "name" } : { mergeKey: "name", items };

const OBJECT_META: PatchSchema = {
  fields: { finalizers: { mergePrimitives: true }, ownerReferences: { mergeKey: "uid" } },
};

const CONTAINER: PatchSchema = {
  fields: {
    ports: { mergeKey: "containerPort" },
    env: byName(),
    volumeMounts: { mergeKey: "mountPath" },
    volumeDevices: { mergeKey: "devicePath" },
  },
};

const POD_SPEC: PatchSchema = {
  fields: {
    containers: byName(CONTAINER),
    initContainers: byName(CONTAINER),
    ephemeralContainers: byName(CONTAINER),
    volumes: byName(),
    imagePullSecrets: byName(),
    resourceClaims: byName(),
    schedulingGates: byName(),
    hostAliases: { mergeKey: "ip" },
    topologySpreadConstraints: { mergeKey: "topologyKey" },
  },
};

const CONDITIONS: PatchSchema = { mergeKey: "type" };

const POD_TEMPLATE: PatchSchema = { fields: { metadata: OBJECT_META, spec: POD_SPEC } };

const withMeta = (fields: Record<string, PatchSchema>): PatchSchema => ({
  fields: { metadata: OBJECT_META, ...fields },
});

const WORKLOAD = withMeta({
  spec: { fields: { template: POD_TEMPLATE } },
  status: { fields: { conditions: CONDITIONS } },
});

const JOB_SPEC: PatchSchema = { fields: { template: POD_TEMPLATE } };

const KINDS: Readonly<Record<string, { groups: readonly string[]; schema: PatchSchema }>> = {
  Pod: { groups: [""], schema: withMeta({ spec: POD_SPEC, status: { fields: { conditions: CONDITIONS } } }) },
  PodTemplate: { groups: [""], schema: withMeta({ template: POD_TEMPLATE }) },
  ReplicationController: { groups: [""], schema: WORKLOAD },
  Deployment: { groups: ["apps", "extensions"], schema: WORKLOAD },
  ReplicaSet: { groups: ["apps", "extensions"], schema: WORKLOAD },
  DaemonSet: { groups: ["apps", "extensions"], schema: WORKLOAD },
  StatefulSet: { groups: ["apps"], schema: WORKLOAD },
  Job: {
    groups: ["batch"],
    schema: withMeta({ spec: JOB_SPEC, status: { fields: { conditions: CONDITIONS } } }),
  },
  CronJob: {
    groups: ["batch"],
    schema: withMeta({
      spec: { fields: { jobTemplate: { fields: { metadata: OBJECT_META, spec: JOB_SPEC } } } },
    }),
  },
  Service: { groups: [""], schema: withMeta({ spec: { fields: { ports: { mergeKey: "port" } } } }) },
  ServiceAccount: { groups: [""], schema: withMeta({ secrets: byName() }) },
  Node: {
    groups: [""],
    schema: withMeta({ status: { fields: { conditions: CONDITIONS, addresses: CONDITIONS } } }),
  },
};

const UNKNOWN_KIND: PatchSchema = withMeta({});

/**
 * The patch schema of a kind; `apiVersion` (e.g. `apps/v1`) disambiguates custom resources that reuse
 * a built-in kind name. Unknown kinds only get `metadata` facts: their lists are replaced.
 */
export function schemaForKind(kind: string | undefined, apiVersion: string | undefined): PatchSchema {
  const entry = kind === undefined ? undefined : KINDS[kind];
  if (entry === undefined) return UNKNOWN_KIND;
  if (apiVersion === undefined) return entry.schema;
  const slash = apiVersion.lastIndexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  return entry.groups.includes(group) ? entry.schema : UNKNOWN_KIND;
}

/** The schema of field `key` of a map; the empty schema when nothing is known. */
export function fieldSchema(schema: PatchSchema, key: string): PatchSchema {
  return schema.fields?.[key] ?? EMPTY;
}

/** The schema of the elements of a list. */
export function itemSchema(schema: PatchSchema): PatchSchema {
  return schema.items ?? EMPTY;
}

/** How a list described by `schema` merges. */
export function listStrategy(schema: PatchSchema): ListStrategy {
  if (schema.mergeKey !== undefined) return { kind: "keyed", key: schema.mergeKey };
  if (schema.mergePrimitives === true) return { kind: "primitives" };
  return { kind: "replace" };
}
