/** Loading `policies.kyverno.io` policies and exceptions, and Kubernetes admission policies with bindings. */
import type { Issue, LoadError, Loaded, Where } from "../load/errors.js";
import { failed, loadWith } from "../load/loader.js";
import { objects, structure } from "../schema/checks.js";
import { isObject, type ObjectSchema } from "../schema/dsl.js";
import {
  admissionPolicySchemas,
  bindingSchema,
  CEL_POLICY_KINDS,
  celExceptionSchema,
  celPolicySchema,
} from "./cel-schema.js";
import type { AdmissionPolicyDocument, CelPolicy, CelPolicyException } from "./cel-types.js";
import type { JsonObject, JsonValue } from "./types.js";

/** Served versions of `policies.kyverno.io`. */
const CEL_VERSIONS: readonly string[] = ["v1alpha1", "v1beta1", "v1"];
/** Versions of the namespaced kinds, which came with v1beta1. */
const NAMESPACED_VERSIONS: readonly string[] = ["v1beta1", "v1"];
/** Served versions of `admissionregistration.k8s.io` admission policies. */
const ADMISSION_VERSIONS: readonly string[] = ["v1", "v1beta1", "v1alpha1"];

function checkApiVersion(
  value: JsonObject,
  group: string,
  versions: readonly string[],
  where: Where,
): { ok: false; errors: LoadError[] } | undefined {
  const apiVersion = value.apiVersion;
  const allowed = versions.map((v) => `${group}/${v}`);
  if (typeof apiVersion === "string" && allowed.includes(apiVersion)) return undefined;
  const message = `unsupported apiVersion ${JSON.stringify(apiVersion ?? null)} for ${String(value.kind)}: use ${allowed.join(", ")}`;
  return failed(where, [{ code: "unsupported-kind", path: ["apiVersion"], message }]);
}

/** A `patchType` must come with its expression. */
function mutationIssues(doc: JsonObject): Issue[] {
  const spec = isObject(doc.spec) ? doc.spec : undefined;
  return objects(spec, "mutations").flatMap((m, i): Issue[] => {
    const field = m.patchType === "JSONPatch" ? "jsonPatch" : "applyConfiguration";
    return isObject(m[field])
      ? []
      : [
          structure(
            ["spec", "mutations", i, field],
            `${field} is required for patchType ${String(m.patchType)}`,
          ),
        ];
  });
}

/**
 * Validates a `policies.kyverno.io` policy (ValidatingPolicy, MutatingPolicy, GeneratingPolicy,
 * DeletingPolicy, ImageValidatingPolicy and their Namespaced kinds, every served version): unknown
 * fields and wrong types are errors naming the field.
 */
export function loadCelPolicy(value: JsonValue, where: Where): Loaded<CelPolicy> {
  if (!isObject(value))
    return failed(where, [{ code: "wrong-type", path: [], message: "expected a policy object" }]);
  const kind = typeof value.kind === "string" ? value.kind : "";
  const baseKind = CEL_POLICY_KINDS[kind];
  const schema: ObjectSchema | undefined = baseKind ? celPolicySchema(baseKind) : undefined;
  if (schema === undefined) {
    const message = `unsupported kind ${JSON.stringify(value.kind ?? null)} of policies.kyverno.io: use one of ${Object.keys(CEL_POLICY_KINDS).join(", ")}`;
    return failed(where, [{ code: "unsupported-kind", path: ["kind"], message }]);
  }
  const versions = kind.startsWith("Namespaced") ? NAMESPACED_VERSIONS : CEL_VERSIONS;
  const bad = checkApiVersion(value, "policies.kyverno.io", versions, where);
  if (bad) return bad;
  const loaded = loadWith(schema, value, where, { checks: mutationIssues });
  // The schema guarantees the shape of the policy kind.
  return loaded.ok
    ? { ok: true, value: loaded.value as unknown as CelPolicy, warnings: loaded.warnings }
    : loaded;
}

/** Validates a `policies.kyverno.io` PolicyException (CEL match conditions, policy references). */
export function loadCelPolicyException(value: JsonValue, where: Where): Loaded<CelPolicyException> {
  if (!isObject(value))
    return failed(where, [{ code: "wrong-type", path: [], message: "expected a PolicyException object" }]);
  const bad = checkApiVersion(value, "policies.kyverno.io", CEL_VERSIONS, where);
  if (bad) return bad;
  const loaded = loadWith(celExceptionSchema, value, where);
  return loaded.ok
    ? { ok: true, value: loaded.value as unknown as CelPolicyException, warnings: loaded.warnings }
    : loaded;
}

/**
 * Validates a Kubernetes ValidatingAdmissionPolicy, MutatingAdmissionPolicy or one of their bindings
 * (`admissionregistration.k8s.io`), as `kyverno apply` / `test` accept them.
 */
export function loadAdmissionPolicy(value: JsonValue, where: Where): Loaded<AdmissionPolicyDocument> {
  if (!isObject(value))
    return failed(where, [{ code: "wrong-type", path: [], message: "expected an admission policy object" }]);
  const kind = typeof value.kind === "string" ? value.kind : "";
  const schema = kind.endsWith("Binding") ? bindingSchema : admissionPolicySchemas[kind];
  if (schema === undefined) {
    const message = `unsupported kind ${JSON.stringify(value.kind ?? null)} of admissionregistration.k8s.io`;
    return failed(where, [{ code: "unsupported-kind", path: ["kind"], message }]);
  }
  const bad = checkApiVersion(value, "admissionregistration.k8s.io", ADMISSION_VERSIONS, where);
  if (bad) return bad;
  const loaded = loadWith(schema, value, where, { checks: mutationIssues });
  return loaded.ok
    ? { ok: true, value: loaded.value as unknown as AdmissionPolicyDocument, warnings: loaded.warnings }
    : loaded;
}
