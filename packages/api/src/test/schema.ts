/** Schemas of the CLI's files: Test, Values (and `Value`) and UserInfo, all `cli.kyverno.io/v1alpha1`. */
import type { Issue } from "../load/errors.js";
import { exactlyOne, isPresent } from "../schema/checks.js";
import { extend, type ObjectOptions, type ObjectSchema, type Schema, s } from "../schema/dsl.js";
import { kubeObject, namedMeta, objectMeta } from "../schema/kube.js";

/** An object of a CLI file: upstream reads these with Go's encoding/json, which ignores the case of field names. */
function o(fields: Readonly<Record<string, Schema>>, options: ObjectOptions = {}): ObjectSchema {
  return s.object(fields, { ...options, foldCase: true });
}

const apiResource = o(
  {
    name: s.string(),
    singularName: s.string(),
    namespaced: s.boolean(),
    group: s.string(),
    version: s.string(),
    kind: s.string(),
    verbs: s.strings(),
    shortNames: s.strings(),
    categories: s.strings(),
    storageVersionHash: s.string(),
  },
  { required: ["name", "kind"] },
);

const values = s.map(s.any());

/** The fields of a Values file, also used inline as a test's `values`. */
const valuesSpec: ObjectSchema = o(
  {
    globalValues: values,
    policies: s.array(
      o(
        {
          name: s.string(),
          resources: s.array(
            o({ name: s.string(), values }, { required: ["name"], defaults: { values: {} } }),
          ),
          rules: s.array(
            o(
              { name: s.string(), values, foreachValues: s.map(s.array(s.any())) },
              { required: ["name"], defaults: { values: {}, foreachValues: {} } },
            ),
          ),
        },
        { required: ["name"], defaults: { resources: [], rules: [] } },
      ),
    ),
    namespaceSelector: s.array(
      o({ name: s.string(), labels: s.stringMap() }, { required: ["name"], defaults: { labels: {} } }),
    ),
    namespaces: s.array({
      ...kubeObject,
      fields: { ...kubeObject.fields, metadata: namedMeta },
      required: ["metadata"],
    }),
    subresources: s.array(
      o(
        { subresource: apiResource, parentResource: apiResource },
        { required: ["subresource", "parentResource"] },
      ),
    ),
  },
  { defaults: { globalValues: {}, policies: [], namespaceSelector: [], namespaces: [], subresources: [] } },
);

const header = { apiVersion: s.string(), metadata: objectMeta };

/** A Values file (kind `Values` or `Value`, or none for the legacy form). */
export const valuesFile: ObjectSchema = extend(valuesSpec, { ...header, kind: s.enum(["Values", "Value"]) });

/** A UserInfo file: `roles`, `clusterRoles` and `userInfo` inline. */
export const userInfoFile: ObjectSchema = o(
  {
    ...header,
    kind: s.enum(["UserInfo"]),
    roles: s.strings(),
    clusterRoles: s.strings(),
    userInfo: o({ username: s.string(), uid: s.string(), groups: s.strings(), extra: s.map(s.strings()) }),
  },
  { defaults: { roles: [], clusterRoles: [], userInfo: {} } },
);

const RESULTS = ["pass", "fail", "warn", "error", "skip"];

const CEL_FLAGS = [
  "isValidatingAdmissionPolicy",
  "isMutatingAdmissionPolicy",
  "isValidatingPolicy",
  "isMutatingPolicy",
  "isGeneratingPolicy",
  "isDeletingPolicy",
  "isImageValidatingPolicy",
];

const testResult = o(
  {
    policy: s.string(),
    rule: s.string(),
    result: s.enum(RESULTS),
    status: s.enum(RESULTS),
    kind: s.string(),
    resources: s.strings(),
    resource: s.string(),
    namespace: s.string(),
    patchedResources: s.string(),
    patchedResource: s.string(),
    generatedResource: s.string(),
    cloneSourceResource: s.string(),
    resourceSpec: o({
      group: s.string(),
      version: s.string(),
      kind: s.string(),
      namespace: s.string(),
      name: s.string(),
    }),
    ...Object.fromEntries(CEL_FLAGS.map((f) => [f, s.boolean()])),
  },
  {
    required: ["policy"],
    defaults: { resources: [] },
    deprecated: {
      status: 'use "result"',
      resource: 'use "resources"',
      namespace: 'use "resources" with namespace/name',
      patchedResource: 'use "patchedResources"',
    },
    checks: [
      (r, path): Issue[] =>
        r.result === undefined && r.status === undefined
          ? [{ code: "missing-field", path, message: 'missing required field "result"' }]
          : [],
    ],
  },
);

const check = o(
  {
    match: o({ resource: s.any(), policy: s.any(), rule: s.any() }),
    assert: s.any(),
    error: s.any(),
  },
  { required: ["match"] },
);

const apiCallResponse = o(
  {
    url: s.string(),
    method: s.string(),
    response: o({ statusCode: s.integer(), body: s.any() }),
  },
  { required: ["url", "response"] },
);

const globalContextEntry = o(
  {
    name: s.string(),
    data: s.any(),
    resources: s.array(kubeObject),
    resourceFiles: s.strings(),
    fieldPath: s.string(),
    projections: s.array(o({ name: s.string(), path: s.string() }, { required: ["name", "path"] })),
  },
  { required: ["name"], checks: [exactlyOne(["data", "resources", "resourceFiles"], isPresent)] },
);

/** A `kyverno-test.yaml` (kind Test). */
export const testFile: ObjectSchema = o(
  {
    ...header,
    kind: s.enum(["Test"]),
    name: s.string(),
    policies: s.strings(),
    resources: s.strings(),
    targetResources: s.strings(),
    clusterResources: s.strings(),
    exceptions: s.strings(),
    variables: s.string(),
    userinfo: s.string(),
    context: s.string(),
    values: valuesSpec,
    results: s.array(testResult),
    checks: s.array(check),
    apiCallResponses: s.array(apiCallResponse),
    globalContextEntries: s.array(globalContextEntry),
  },
  {
    deprecated: { name: 'use "metadata.name"' },
    defaults: {
      policies: [],
      resources: [],
      targetResources: [],
      clusterResources: [],
      exceptions: [],
      results: [],
      checks: [],
      apiCallResponses: [],
      globalContextEntries: [],
    },
  },
);
