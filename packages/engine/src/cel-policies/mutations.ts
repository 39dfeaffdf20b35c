/**
 * MutatingPolicy mutations, as the MutatingPolicy handlers apply them (admission and mutate-existing):
 * JSON patches and apply configurations in order, each seeing the object as the ones before it left
 * it, with an autogen variant's patches nested under the controller's Pod template.
 */
import type { CelValue } from "@bufbuild/cel";
import type { CelMutation, JsonValue } from "@kyverno-ts/api";
import type { CelSession } from "../cel/session.js";
import { toCelValue, toJson } from "../cel/values.js";
import { applyJson6902, applyStrategicMerge } from "../mutate/index.js";
import type { CompiledVariant } from "./compile.js";
import { withVariables } from "./variables.js";

/**
 * Applies a variant's mutations in order to `original`, each evaluated with `object` bound to the
 * object as the mutations before it left it.
 */
export function applyMutations(
  variant: CompiledVariant,
  bindings: Record<string, CelValue>,
  session: CelSession,
  original: JsonValue,
): { ok: true; value: JsonValue } | { ok: false; error: string } {
  let current = original;
  let scoped = bindings;
  for (const m of variant.mutations) {
    const out = m.program.evaluate(scoped, session);
    if (!out.ok) return { ok: false, error: `${m.program.expression}: ${out.error}` };
    const patch = nestUnderTemplate(toJson(out.value), m.patchType, variant.name);
    const applied =
      m.patchType === "JSONPatch"
        ? applyJson6902(current, patch, { allowMissingPathOnRemove: false, ensurePathExistsOnAdd: false })
        : applyStrategicMerge(current, patch);
    if (!applied.ok) return applied;
    if (applied.value !== current) {
      current = applied.value;
      scoped = withVariables(
        { ...bindings, object: toCelValue(current) },
        variant.block.variableIndex,
        session,
      );
    }
  }
  return { ok: true, value: current };
}

/** Where an autogen variant's Pod lives in the controller: its path segments. */
const TEMPLATE_PATHS: Readonly<Record<string, readonly string[]>> = {
  autogen: ["spec", "template"],
  "autogen-cronjobs": ["spec", "jobTemplate", "spec", "template"],
};

/**
 * A MutatingPolicy's patch for the controller of an autogen variant: an apply configuration's Pod
 * `metadata` and `spec` nested under the Pod template (other fields left as they are), a JSON
 * patch's `/metadata…` and `/spec…` paths moved under it. The policy's own variant is unchanged.
 */
export function nestUnderTemplate(
  patch: JsonValue,
  patchType: CelMutation["patchType"],
  variant: string,
): JsonValue {
  const template = TEMPLATE_PATHS[variant];
  if (template === undefined) return patch;
  if (patchType === "JSONPatch") {
    if (!Array.isArray(patch)) return patch;
    const prefix = `/${template.join("/")}`;
    const move = (path: JsonValue | undefined): JsonValue | undefined =>
      typeof path === "string" && /^\/(spec|metadata)(\/|$)/.test(path) ? `${prefix}${path}` : path;
    return patch.map((op) => {
      if (op === null || typeof op !== "object" || Array.isArray(op)) return op;
      const out: Record<string, JsonValue> = { ...op };
      const path = move(op.path);
      const from = move(op.from);
      if (path !== undefined) out.path = path;
      if (from !== undefined) out.from = from;
      return out;
    });
  }
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return patch;
  const { metadata, spec, ...rest } = patch;
  if (metadata === undefined && spec === undefined) return patch;
  let pod: JsonValue = {
    ...(metadata === undefined ? {} : { metadata }),
    ...(spec === undefined ? {} : { spec }),
  };
  for (const key of [...template].reverse()) pod = { [key]: pod };
  return { ...rest, ...(pod as Record<string, JsonValue>) };
}
