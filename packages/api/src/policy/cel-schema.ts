/**
 * Schemas of the `policies.kyverno.io` kinds (every served version has the same fields) and of the
 * Kubernetes admission policies, in the schema DSL. CEL expressions are strings here; the engine
 * parses and checks them when it compiles the policy.
 */
import { uniqueBy } from "../schema/checks.js";
import { type ObjectSchema, type Schema, s } from "../schema/dsl.js";
import { labelSelector, namedMeta } from "../schema/kube.js";

const named = (extra: Record<string, Schema> = {}): Schema =>
  s.array(
    s.object({ name: s.string(), expression: s.string(), ...extra }, { required: ["name", "expression"] }),
    uniqueBy("name", "name"),
  );

/** A `resourceRules` entry. */
const resourceRule: ObjectSchema = s.object({
  apiGroups: s.strings(),
  apiVersions: s.strings(),
  operations: s.array(s.enum(["*", "CREATE", "UPDATE", "DELETE", "CONNECT"])),
  resources: s.strings(),
  resourceNames: s.strings(),
  scope: s.enum(["*", "Cluster", "Namespaced"]),
});

/** `matchConstraints` (and a binding's `matchResources`). */
export const matchConstraintsSchema: ObjectSchema = s.object({
  resourceRules: s.array(resourceRule),
  excludeResourceRules: s.array(resourceRule),
  matchPolicy: s.enum(["Exact", "Equivalent"]),
  namespaceSelector: labelSelector,
  objectSelector: labelSelector,
});

const validation = s.object(
  { expression: s.string(), message: s.string(), messageExpression: s.string(), reason: s.string() },
  { required: ["expression"] },
);

const auditAnnotations = s.array(
  s.object({ key: s.string(), valueExpression: s.string() }, { required: ["key", "valueExpression"] }),
);

const enabled = s.object({ enabled: s.boolean() });

const evaluation = s.object({
  mode: s.enum(["Kubernetes", "JSON"]),
  admission: enabled,
  background: enabled,
  mutateExisting: enabled,
  generateExisting: enabled,
  synchronize: enabled,
  orphanDownstreamOnPolicyDelete: enabled,
  skipBackgroundRequests: s.boolean(),
  useServerSideApply: s.boolean(),
});

const autogen = s.object({
  podControllers: s.object({ controllers: s.strings() }),
  validatingAdmissionPolicy: enabled,
  mutatingAdmissionPolicy: enabled,
});

const base = {
  matchConstraints: matchConstraintsSchema,
  matchConditions: named(),
  variables: named(),
  failurePolicy: s.enum(["Ignore", "Fail"]),
  auditAnnotations,
  evaluation,
  webhookConfiguration: s.object({ timeoutSeconds: s.integer() }),
};

const validationActions = s.array(s.enum(["Deny", "Audit", "Warn"]));

const mutation = s.object(
  {
    patchType: s.enum(["ApplyConfiguration", "JSONPatch"]),
    applyConfiguration: s.object({ expression: s.string() }),
    jsonPatch: s.object({ expression: s.string() }),
  },
  { required: ["patchType"] },
);

const specs: Record<string, ObjectSchema> = {
  ValidatingPolicy: s.object({ ...base, validations: s.array(validation), validationActions, autogen }),
  MutatingPolicy: s.object({
    ...base,
    mutations: s.array(mutation),
    reinvocationPolicy: s.enum(["Never", "IfNeeded"]),
    autogen,
    targetMatchConstraints: s.object({ ...matchConstraintsSchema.fields, expression: s.string() }),
    targetMatchConditions: named(),
  }),
  GeneratingPolicy: s.object(
    {
      ...base,
      generate: s.array(s.object({ expression: s.string() }, { required: ["expression"] })),
      useServerSideApply: s.boolean(),
    },
    { required: ["generate"] },
  ),
  DeletingPolicy: s.object(
    {
      matchConstraints: matchConstraintsSchema,
      conditions: named(),
      variables: named(),
      schedule: s.string(),
      deletionPropagationPolicy: s.enum(["Foreground", "Background", "Orphan"]),
    },
    { required: ["schedule"] },
  ),
  ImageValidatingPolicy: s.object({
    ...base,
    validations: s.array(validation),
    validationActions,
    autogen,
    matchImageReferences: s.array(s.any()),
    images: s.array(s.any()),
    attestors: s.array(s.any()),
    attestations: s.array(s.any()),
    credentials: s.any(),
    validationConfigurations: s.any(),
  }),
};

/** The kinds of `policies.kyverno.io` policies, cluster-wide and namespaced, with their base kind. */
export const CEL_POLICY_KINDS: Readonly<Record<string, string>> = {
  ValidatingPolicy: "ValidatingPolicy",
  NamespacedValidatingPolicy: "ValidatingPolicy",
  MutatingPolicy: "MutatingPolicy",
  NamespacedMutatingPolicy: "MutatingPolicy",
  GeneratingPolicy: "GeneratingPolicy",
  NamespacedGeneratingPolicy: "GeneratingPolicy",
  DeletingPolicy: "DeletingPolicy",
  NamespacedDeletingPolicy: "DeletingPolicy",
  ImageValidatingPolicy: "ImageValidatingPolicy",
  NamespacedImageValidatingPolicy: "ImageValidatingPolicy",
};

/** The document schema of a CEL policy kind. */
export function celPolicySchema(baseKind: string): ObjectSchema | undefined {
  const spec = specs[baseKind];
  if (spec === undefined) return undefined;
  return s.object(
    { apiVersion: s.string(), kind: s.string(), metadata: namedMeta, spec, status: s.any() },
    { required: ["apiVersion", "kind", "metadata", "spec"] },
  );
}

/** A `policies.kyverno.io` PolicyException. */
export const celExceptionSchema: ObjectSchema = s.object(
  {
    apiVersion: s.string(),
    kind: s.enum(["PolicyException"]),
    metadata: namedMeta,
    spec: s.object(
      {
        policyRefs: s.array(s.object({ name: s.string(), kind: s.string() }, { required: ["name", "kind"] })),
        matchConditions: named(),
        images: s.strings(),
        allowedValues: s.strings(),
        properties: s.stringMap(),
        reportResult: s.enum(["skip", "pass"]),
        evaluationMode: s.string(),
        expiresAt: s.string(),
      },
      { required: ["policyRefs"] },
    ),
    status: s.any(),
  },
  { required: ["apiVersion", "kind", "metadata", "spec"] },
);

const paramKind = s.object({ apiVersion: s.string(), kind: s.string() });

/** Kubernetes' admission policy kinds and bindings. */
export const admissionPolicySchemas: Readonly<Record<string, ObjectSchema>> = {
  ValidatingAdmissionPolicy: s.object(
    {
      apiVersion: s.string(),
      kind: s.string(),
      metadata: namedMeta,
      spec: s.object({
        paramKind,
        matchConstraints: matchConstraintsSchema,
        validations: s.array(validation),
        failurePolicy: s.enum(["Ignore", "Fail"]),
        auditAnnotations,
        matchConditions: named(),
        variables: named(),
      }),
      status: s.any(),
    },
    { required: ["apiVersion", "kind", "metadata", "spec"] },
  ),
  MutatingAdmissionPolicy: s.object(
    {
      apiVersion: s.string(),
      kind: s.string(),
      metadata: namedMeta,
      spec: s.object({
        paramKind,
        matchConstraints: matchConstraintsSchema,
        mutations: s.array(mutation),
        failurePolicy: s.enum(["Ignore", "Fail"]),
        matchConditions: named(),
        variables: named(),
        reinvocationPolicy: s.enum(["Never", "IfNeeded"]),
      }),
      status: s.any(),
    },
    { required: ["apiVersion", "kind", "metadata", "spec"] },
  ),
};

/** A ValidatingAdmissionPolicyBinding or MutatingAdmissionPolicyBinding. */
export const bindingSchema: ObjectSchema = s.object(
  {
    apiVersion: s.string(),
    kind: s.string(),
    metadata: namedMeta,
    spec: s.object(
      {
        policyName: s.string(),
        paramRef: s.object({
          name: s.string(),
          namespace: s.string(),
          selector: labelSelector,
          parameterNotFoundAction: s.enum(["Allow", "Deny"]),
        }),
        matchResources: matchConstraintsSchema,
        validationActions,
      },
      { required: ["policyName"] },
    ),
  },
  { required: ["apiVersion", "kind", "metadata", "spec"] },
);
