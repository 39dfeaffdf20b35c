/**
 * Upstream's admission checks of Pod Security exclusions (`podSecurity.exclude[]` of a rule,
 * `spec.podSecurity[]` of a PolicyException): whether `images` fits the control's level, and
 * `restrictedField` with `values`.
 */
import type { Issue, PathSegment } from "../load/errors.js";
import { arr, isSet, str, structure } from "../schema/checks.js";
import type { JsonObject } from "./json.js";

/** Controls whose restricted fields are only on containers: an exclusion must name the images. */
const CONTAINER_LEVEL: ReadonlySet<string> = new Set([
  "Capabilities",
  "Privileged Containers",
  "Host Ports",
  "/proc Mount Type",
  "Privilege Escalation",
]);

/** Controls whose restricted fields are only on the Pod spec: images select nothing there. */
const POD_LEVEL: ReadonlySet<string> = new Set([
  "Host Namespaces",
  "HostPath Volumes",
  "Volume Types",
  "Sysctls",
]);

/** Problems of one exclusion entry at `path`. */
export function podSecurityExcludeIssues(exclude: JsonObject, path: readonly PathSegment[]): Issue[] {
  const issues: Issue[] = [];
  const control = str(exclude, "controlName") ?? "";
  const images = arr(exclude, "images");
  if (CONTAINER_LEVEL.has(control) && images.length === 0)
    issues.push(
      structure(
        [...path, "images"],
        `exclude.images must be specified for the container level control ${JSON.stringify(control)}`,
      ),
    );
  if (POD_LEVEL.has(control) && images.length > 0)
    issues.push(
      structure(
        [...path, "images"],
        `exclude.images must not be specified for the pod level control ${JSON.stringify(control)}`,
      ),
    );
  images.forEach((image, i) => {
    if (typeof image === "string" && (image.trim() === "" || /\s/.test(image)))
      issues.push({
        code: "invalid-value",
        path: [...path, "images", i],
        message: `invalid image ${JSON.stringify(image)}: an image name with optional * and ? wildcards`,
      });
  });
  const field = str(exclude, "restrictedField");
  const hasValues = isSet(exclude.values);
  if (field !== undefined && field !== "" && !hasValues)
    issues.push(structure([...path, "values"], "values is required when restrictedField is set"));
  if ((field === undefined || field === "") && hasValues)
    issues.push(structure([...path, "restrictedField"], "restrictedField is required when values are set"));
  return issues;
}

/** Problems of every entry of an exclusion list at `path`. */
export function podSecurityExcludesIssues(excludes: JsonObject[], path: readonly PathSegment[]): Issue[] {
  return excludes.flatMap((e, i) => podSecurityExcludeIssues(e, [...path, i]));
}
