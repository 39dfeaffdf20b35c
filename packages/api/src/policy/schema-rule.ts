/** Schemas of a rule and its validate / mutate / generate blocks, per API version. */
import type { Issue, PathSegment } from "../load/errors.js";
import {
  arr,
  atMostOne,
  deepEqual,
  exactlyOne,
  isPresent,
  isSet,
  objects,
  str,
  structure,
} from "../schema/checks.js";
import {
  type Check,
  extend,
  type Infer,
  isObject,
  type ObjectSchema,
  omit,
  type Schema,
  s,
} from "../schema/dsl.js";
import { labelSelector } from "../schema/kube.js";
import { patternIssues } from "./anchors.js";
import type { JsonObject, JsonValue } from "./json.js";
import { jsonPatchIssues } from "./json-patch.js";
import { freeConditions, v1Conditions, v2Conditions } from "./schema-conditions.js";
import { contextEntry } from "./schema-context.js";
import { manifests, v1ImageVerification, v2ImageVerification } from "./schema-images.js";
import { v1Exclude, v1Match, v2Exclude, v2Match } from "./schema-match.js";

/** The API versions of ClusterPolicy / Policy. */
export type PolicyVersion = "v1" | "v2beta1";

/**
 * The schema of `version`, typed as the v1 one: the wire types are those of kyverno.io/v1, and each
 * v2beta1 schema accepts a subset of what its v1 counterpart does.
 */
function byVersion<T>(version: PolicyVersion, v1: Schema<T>, v2beta1: Schema): Schema<T> {
  return version === "v1" ? v1 : s.typed<T>(v2beta1);
}

const context = s.array(contextEntry);

/** Checks `pattern` and each `anyPattern` item for anchors upstream rejects. */
const patterns: Check<JsonObject> = (o, path) => [
  ...(o.pattern === undefined ? [] : patternIssues(o.pattern, [...path, "pattern"])),
  ...arr(o, "anyPattern").flatMap((p, i) => patternIssues(p, [...path, "anyPattern", i])),
];

const failureActionOverride = s.object(
  {
    action: s.enum(["Audit", "Enforce"], { ignoreCase: true }),
    namespaces: s.strings(),
    namespaceSelector: labelSelector,
  },
  { required: ["action"] },
);

const PSS_CONTROLS = [
  "HostProcess",
  "Host Namespaces",
  "Privileged Containers",
  "Capabilities",
  "HostPath Volumes",
  "Host Ports",
  "AppArmor",
  "SELinux",
  "/proc Mount Type",
  "Seccomp",
  "Sysctls",
  "Volume Types",
  "Privilege Escalation",
  "Running as Non-root",
  "Running as Non-root user",
];
const PSS_VERSIONS = [...Array.from({ length: 14 }, (_, i) => `v1.${19 + i}`), "latest"];

/** One `podSecurity.exclude[]` entry; shared with PolicyException. */
export const podSecurityExclude = s.object(
  {
    controlName: s.enum(PSS_CONTROLS),
    images: s.strings(),
    restrictedField: s.string(),
    values: s.strings(),
  },
  { required: ["controlName"] },
);

const cel = s.object({
  expressions: s.array(
    s.object(
      { expression: s.string(), message: s.string(), messageExpression: s.string(), reason: s.string() },
      { required: ["expression"] },
    ),
  ),
  paramKind: s.object({ apiVersion: s.string(), kind: s.string() }),
  paramRef: s.object({
    name: s.string(),
    namespace: s.string(),
    parameterNotFoundAction: s.string(),
    selector: labelSelector,
  }),
  auditAnnotations: s.array(
    s.object({ key: s.string(), valueExpression: s.string() }, { required: ["key", "valueExpression"] }),
  ),
  variables: s.array(
    s.object({ name: s.string(), expression: s.string() }, { required: ["name", "expression"] }),
  ),
  generate: s.boolean(),
});

const validateForeachFields = s.object(
  {
    list: s.string(),
    elementScope: s.boolean(),
    context,
    preconditions: v1Conditions,
    pattern: s.any(),
    anyPattern: s.array(s.any()),
    deny: s.object({ conditions: freeConditions }),
  },
  { required: ["list"] },
);

/** One `validate.foreach` entry (recursive, so written as an interface over its schema's fields). */
export interface ValidateForeach extends Infer<typeof validateForeachFields> {
  foreach?: ValidateForeach[];
}

const validateForeach: ObjectSchema<ValidateForeach> = extend(
  validateForeachFields,
  { foreach: s.lazy(() => s.array(validateForeach)) },
  { checks: [exactlyOne(["pattern", "anyPattern", "deny", "foreach"], isPresent, "foreach: "), patterns] },
);

const PSS_LEVELS: readonly string[] = ["privileged", "baseline", "restricted"];

const VALIDATION_KINDS = [
  "pattern",
  "anyPattern",
  "deny",
  "foreach",
  "podSecurity",
  "cel",
  "manifests",
  "assert",
];

function validation(version: PolicyVersion) {
  const exactlyOneKind = exactlyOne(VALIDATION_KINDS);
  const v1 = s.object(
    {
      failureAction: s.enum(["Audit", "Enforce"]),
      failureActionOverrides: s.array(failureActionOverride),
      allowExistingViolations: s.boolean(),
      message: s.string(),
      pattern: s.any(),
      anyPattern: s.array(s.any()),
      deny: s.object({ conditions: byVersion(version, freeConditions, v2Conditions) }),
      foreach: s.array(validateForeach),
      podSecurity: s.object({
        level: s.enum(PSS_LEVELS),
        version: s.enum(PSS_VERSIONS),
        exclude: s.array(podSecurityExclude),
      }),
      // CEL and manifest validation are carried as raw JSON by the engine.
      cel: s.typed<JsonObject>(cel),
      manifests: s.typed<JsonObject>(manifests),
      assert: s.any(),
    },
    { checks: [(o, path) => (isSet(o) ? exactlyOneKind(o, path) : []), patterns] },
  );
  // allowExistingViolations is a v1 field.
  const typed: ObjectSchema<Infer<typeof v1>> = version === "v1" ? v1 : omit(v1, ["allowExistingViolations"]);
  return typed;
}

const mutateForeachFields = s.object({
  list: s.string(),
  order: s.enum(["Ascending", "Descending"]),
  context,
  preconditions: v1Conditions,
  patchStrategicMerge: s.any(),
  patchesJson6902: s.string(),
});

/**
 * One `mutate.foreach` entry (recursive, so written as an interface over its schema's fields). `list`
 * is typed as present although upstream's schema does not require it.
 */
export interface MutateForeach extends Infer<typeof mutateForeachFields> {
  list: string;
  foreach?: MutateForeach[];
}

const mutateForeach: Schema<MutateForeach> = s.typed<MutateForeach>(
  extend(
    mutateForeachFields,
    { foreach: s.lazy(() => s.array(mutateForeach)) },
    {
      checks: [
        (o, path): Issue[] => {
          if (isSet(o.foreach)) {
            const other = ["context", "preconditions", "patchStrategicMerge", "patchesJson6902"].some((k) =>
              isPresent(o[k]),
            );
            return other ? [structure(path, "a nested foreach cannot contain other declarations")] : [];
          }
          // As upstream: a strategic merge patch counts when present (even `{}`), a JSON patch when non-empty.
          return exactlyOne(["patchStrategicMerge", "patchesJson6902"], (v) =>
            typeof v === "string" ? v !== "" : isPresent(v),
          )(o, path);
        },
      ],
    },
  ),
);

const targetFields = s.object({
  apiVersion: s.string(),
  kind: s.string(),
  namespace: s.string(),
  name: s.string(),
  uid: s.string(),
  selector: labelSelector,
  context,
  preconditions: freeConditions,
});

/** A target of a mutate-existing rule; `apiVersion` and `kind` are typed as present although upstream's schema does not require them. */
export type TargetSelector = Omit<Infer<typeof targetFields>, "apiVersion" | "kind"> & {
  apiVersion: string;
  kind: string;
};

const target = s.typed<TargetSelector>(targetFields);

/** The `mutate` block of a rule. */
export const mutation = s.object(
  {
    patchStrategicMerge: s.any(),
    patchesJson6902: s.string(),
    foreach: s.array(mutateForeach),
    targets: s.array(target),
    mutateExistingOnPolicyUpdate: s.boolean(),
  },
  {
    checks: [
      atMostOne(["foreach", "patchStrategicMerge", "patchesJson6902"], isPresent),
      (o, path) => {
        const patch = str(o, "patchesJson6902");
        return patch === undefined ? [] : jsonPatchIssues(patch, [...path, "patchesJson6902"]);
      },
    ],
  },
);

const clone = s.object({ name: s.string(), namespace: s.string() });
const cloneList = s.object({ kinds: s.strings(), namespace: s.string(), selector: labelSelector });
const GENERATE_SOURCES = ["data", "clone", "cloneList", "foreach"];

/** What a generate rule (or one of its foreach entries) creates. */
const generateTarget = {
  apiVersion: s.string(),
  kind: s.string(),
  namespace: s.string(),
  name: s.string(),
  uid: s.string(),
  data: s.any(),
  clone,
  cloneList,
};

const generateForeachFields = s.object(
  { list: s.string(), context, preconditions: v1Conditions, ...generateTarget },
  { checks: [atMostOne(["data", "clone", "cloneList"], isPresent)] },
);

/** One `generate.foreach` entry; `list` is typed as present although upstream's schema does not require it. */
export type GenerateForeach = Omit<Infer<typeof generateForeachFields>, "list"> & { list: string };

const generateForeach = s.typed<GenerateForeach>(generateForeachFields);

/**
 * A clone rule needs a kind and a name unless a cloneList names kinds. The kinds it reads (`kind`,
 * `apiVersion`, `cloneList.kinds`) are watched from the moment the policy is created, so they may not
 * hold variables; the source's name, namespace and selector may (they are read per trigger).
 */
const cloneSource: Check<JsonObject> = (o, path) => {
  if (isPresent(o.data) || isSet(o.foreach)) return [];
  const issues: Issue[] = [];
  const list = isObject(o.cloneList) ? o.cloneList : undefined;
  if (arr(list, "kinds").length === 0) {
    for (const key of ["kind", "name"])
      if (!isSet(o[key])) issues.push(structure([...path, key], `${key} can not be empty`));
  }
  const watched: Array<[PathSegment[], JsonValue | undefined]> = [
    [[...path, "kind"], o.kind],
    [[...path, "apiVersion"], o.apiVersion],
    [[...path, "cloneList", "kinds"], list?.kinds],
  ];
  for (const [at, value] of watched) {
    if (value !== undefined && JSON.stringify(value).includes("{{"))
      issues.push(
        structure(
          at,
          "the kinds a clone or cloneList rule reads (kind, apiVersion, cloneList.kinds) should not have variables",
        ),
      );
  }
  return issues;
};

const generation = s.object(
  {
    ...generateTarget,
    foreach: s.array(generateForeach),
    synchronize: s.boolean(),
    orphanDownstreamOnPolicyDelete: s.boolean(),
    generateExisting: s.boolean(),
  },
  { checks: [atMostOne(GENERATE_SOURCES, isPresent), cloneSource] },
);

const RULE_TYPES = ["validate", "mutate", "generate", "verifyImages"];

const ruleType: Check<JsonObject> = (o, path) => {
  const set = RULE_TYPES.filter((k) => isSet(o[k]));
  const name = JSON.stringify(str(o, "name") ?? "");
  if (set.length === 0)
    return [
      structure(
        path,
        `no operation defined in the rule ${name} (one of validate, mutate, generate or verifyImages)`,
      ),
    ];
  if (set.length > 1)
    return [
      structure(
        path,
        `multiple operations defined in the rule ${name}: only one of validate, mutate, generate or verifyImages is allowed`,
      ),
    ];
  return [];
};

/**
 * Upstream rejects a rule whose exclude cannot leave anything matched. Like upstream this compares
 * `any` filters pairwise; for the legacy inline form we only flag an exclude identical to the match.
 */
const matchesNothing: Check<JsonObject> = (o, path) => {
  const match = isObject(o.match) ? o.match : {};
  const exclude = isObject(o.exclude) ? o.exclude : {};
  if (!isSet(exclude) || isSet(match.all) || isSet(exclude.all)) return [];
  const message = "rule is matching an empty set: the exclude block is the same as the match block";
  if (isSet(match.any) && isSet(exclude.any)) {
    const excluded = objects(exclude, "any");
    const conflict = objects(match, "any").some((m) => excluded.some((e) => deepEqual(m, e)));
    return conflict ? [structure(path, message)] : [];
  }
  return !isSet(match.any) && !isSet(exclude.any) && deepEqual(match, exclude)
    ? [structure(path, message)]
    : [];
};

/** The schema of a rule of the given API version (typed as a kyverno.io/v1 rule). */
export function ruleSchema(version: PolicyVersion) {
  return s.object(
    {
      name: s.string(),
      context,
      match: byVersion(version, v1Match, v2Match),
      exclude: byVersion(version, v1Exclude, v2Exclude),
      preconditions: byVersion(version, freeConditions, v2Conditions),
      // Carried as raw JSON by the engine, as are verifyImages and imageExtractors.
      celPreconditions: s.typed<JsonValue[]>(
        s.array(s.object({ name: s.string(), expression: s.string() }, { required: ["name", "expression"] })),
      ),
      validate: validation(version),
      mutate: mutation,
      generate: generation,
      verifyImages: s.typed<JsonValue[]>(
        s.array(version === "v1" ? v1ImageVerification : v2ImageVerification),
      ),
      imageExtractors: s.typed<JsonObject>(
        s.map(
          s.array(
            s.object(
              {
                path: s.string(),
                value: s.string(),
                name: s.string(),
                key: s.string(),
                jmesPath: s.string(),
              },
              { required: ["path"] },
            ),
          ),
        ),
      ),
      reportProperties: s.stringMap(),
      skipBackgroundRequests: s.boolean(),
    },
    { required: ["name", "match"], checks: [ruleType, matchesNothing] },
  );
}

/** The schema of a failure action override, shared by spec and validate. */
export const failureActionOverrides = s.array(failureActionOverride);
