/** Schemas of kyverno.io ClusterPolicy / Policy documents, v1 and v2beta1. */
import type { Issue } from "../load/errors.js";
import { uniqueBy } from "../schema/checks.js";
import { type ObjectSchema, s } from "../schema/dsl.js";
import { namedMeta } from "../schema/kube.js";
import type { JsonObject } from "./json.js";
import type { ObjectMeta } from "./meta.js";
import { failureActionOverrides, type PolicyVersion, ruleSchema } from "./schema-rule.js";

/** Upstream stores policy names in labels, so they are limited to 63 characters. */
const MAX_NAME = 63;

/** Upstream defaults of a policy spec, applied on load. */
const SPEC_DEFAULTS = {
  rules: [],
  applyRules: "All",
  validationFailureAction: "Audit",
  background: true,
  admission: true,
  emitWarning: false,
  failurePolicy: "Fail",
};

function spec(version: PolicyVersion) {
  return s.object(
    {
      rules: s.array(ruleSchema(version), uniqueBy("name", "rule name")),
      applyRules: s.enum(["All", "One"]),
      validationFailureAction: s.enum(["Audit", "Enforce"], { ignoreCase: true }),
      validationFailureActionOverrides: failureActionOverrides,
      background: s.boolean(),
      admission: s.boolean(),
      emitWarning: s.boolean(),
      failurePolicy: s.enum(["Ignore", "Fail"]),
      webhookTimeoutSeconds: s.integer(),
      // Carried as raw JSON (the webhook configuration reads it).
      webhookConfiguration: s.typed<JsonObject>(
        s.object({
          failurePolicy: s.enum(["Ignore", "Fail"]),
          timeoutSeconds: s.integer(),
          matchConditions: s.array(
            s.object({ name: s.string(), expression: s.string() }, { required: ["name", "expression"] }),
          ),
        }),
      ),
      useServerSideApply: s.boolean(),
      schemaValidation: s.boolean(),
      mutateExistingOnPolicyUpdate: s.boolean(),
      generateExisting: s.boolean(),
      generateExistingOnPolicyUpdate: s.boolean(),
    },
    { defaults: SPEC_DEFAULTS },
  );
}

const metadata: ObjectSchema = {
  ...namedMeta,
  checks: [
    (o, path): Issue[] =>
      typeof o.name === "string" && o.name.length > MAX_NAME
        ? [
            {
              code: "invalid-value",
              path: [...path, "name"],
              message: `name must be no more than ${MAX_NAME} characters`,
            },
          ]
        : [],
  ],
};

function document(version: PolicyVersion) {
  return s.object(
    {
      apiVersion: s.string(),
      kind: s.enum(["ClusterPolicy", "Policy"]),
      metadata: s.typed<ObjectMeta & { name: string }>(metadata),
      spec: spec(version),
      status: s.any(),
    },
    { required: ["apiVersion", "kind", "metadata", "spec"] },
  );
}

/** Schema of a kyverno.io/v1 ClusterPolicy or Policy. */
export const policyV1 = document("v1");

/** Schema of a kyverno.io/v2beta1 ClusterPolicy or Policy. */
export const policyV2beta1: typeof policyV1 = document("v2beta1");
