/**
 * kube-apiserver's checks on `pods/ephemeralcontainers` updates (`kubectl debug`): ephemeral containers
 * can only be added, never changed or removed, and every container name in the Pod is unique.
 */
import { isDeepStrictEqual } from "node:util";
import type { JsonObject } from "@kyverno-ts/api";
import { fieldForbidden, type StatusCause } from "../http/status.js";
import { asObject, asObjects } from "../objects/meta.js";

const nameOf = (c: JsonObject): string => (typeof c.name === "string" ? c.name : "");

/** The 422 causes of an ephemeral containers update from `old` to `next` (empty when it is allowed). */
export function ephemeralContainerChanges(old: JsonObject, next: JsonObject): StatusCause[] {
  const before = asObjects(asObject(old.spec)?.ephemeralContainers);
  const spec = asObject(next.spec) ?? {};
  const after = asObjects(spec.ephemeralContainers);
  const causes: StatusCause[] = [];
  const removed = before.filter((b) => !after.some((a) => nameOf(a) === nameOf(b))).map(nameOf);
  if (removed.length > 0)
    causes.push(
      fieldForbidden(
        "spec.ephemeralContainers",
        `existing ephemeral containers ${removed.map((n) => JSON.stringify(n)).join(", ")} may not be removed`,
      ),
    );
  after.forEach((container, i) => {
    const previous = before.find((b) => nameOf(b) === nameOf(container));
    if (previous !== undefined && !isDeepStrictEqual(previous, container))
      causes.push(
        fieldForbidden(
          `spec.ephemeralContainers[${i}]`,
          `existing ephemeral containers ${JSON.stringify(nameOf(container))} may not be changed`,
        ),
      );
  });
  const taken = new Set([...asObjects(spec.initContainers), ...asObjects(spec.containers)].map(nameOf));
  after.forEach((container, i) => {
    const name = nameOf(container);
    if (taken.has(name))
      causes.push({
        reason: "FieldValueDuplicate",
        message: `Duplicate value: ${JSON.stringify(name)}`,
        field: `spec.ephemeralContainers[${i}].name`,
      });
    taken.add(name);
  });
  return causes;
}
