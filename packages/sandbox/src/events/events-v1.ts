/**
 * `events.k8s.io/v1` Events, served from the core/v1 Events' storage as kube-apiserver does (one
 * `events` table; the two APIs are views of it): the field conversion between the two shapes, and the
 * validation kube-apiserver applies to Events written through `events.k8s.io/v1`.
 */
import type { JsonObject } from "@kyverno-ts/api";
import { fieldInvalid, fieldRequired, type StatusCause } from "../http/status.js";

/** events.k8s.io/v1 field ← core/v1 field (the rest is shared). */
const RENAMES: ReadonlyArray<readonly [string, string]> = [
  ["regarding", "involvedObject"],
  ["note", "message"],
  ["reportingController", "reportingComponent"],
  ["deprecatedSource", "source"],
  ["deprecatedFirstTimestamp", "firstTimestamp"],
  ["deprecatedLastTimestamp", "lastTimestamp"],
  ["deprecatedCount", "count"],
];

function rename(
  object: JsonObject,
  apiVersion: string,
  pairs: ReadonlyArray<readonly [string, string]>,
): JsonObject {
  const out: JsonObject = { ...object, apiVersion };
  for (const [from, to] of pairs) {
    delete out[to];
    if (object[from] !== undefined) out[to] = object[from];
  }
  for (const [from] of pairs) delete out[from];
  return out;
}

/** A stored core/v1 Event as `events.k8s.io/v1` serves it. */
export function eventToV1(stored: JsonObject): JsonObject {
  return rename(
    stored,
    "events.k8s.io/v1",
    RENAMES.map(([v1, core]) => [core, v1] as const),
  );
}

/** An `events.k8s.io/v1` Event as stored (core/v1). */
export function eventFromV1(served: JsonObject): JsonObject {
  return rename(served, "v1", RENAMES);
}

const isEmpty = (value: unknown): boolean =>
  value === undefined ||
  value === null ||
  value === "" ||
  value === 0 ||
  (typeof value === "object" && value !== null && Object.values(value).every(isEmpty));

/**
 * kube-apiserver's checks of an Event written through `events.k8s.io/v1` (`ValidateEventCreate` and
 * its legacy part): `eventTime`, `reportingController`, `reportingInstance`, `action` and `reason`
 * required, `type` Normal or Warning, `note` at most 1 kB, a `series` of at least 2 with
 * `lastObservedTime`, and on create the deprecated fields unset.
 */
export function validateEventV1(object: JsonObject, creating: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  if (isEmpty(object.eventTime)) causes.push(fieldRequired("eventTime", ""));
  for (const field of ["reportingController", "reportingInstance", "action", "reason"])
    if (typeof object[field] !== "string" || object[field] === "") causes.push(fieldRequired(field, ""));
  if (object.type !== "Normal" && object.type !== "Warning")
    causes.push(fieldInvalid("type", object.type ?? "", `has invalid value: ${String(object.type ?? "")}`));
  if (typeof object.note === "string" && Buffer.byteLength(object.note) > 1024)
    causes.push(fieldInvalid("note", "", "can have at most 1024 characters"));
  const series = object.series;
  if (series !== undefined && series !== null && typeof series === "object" && !Array.isArray(series)) {
    if (typeof series.count !== "number" || series.count < 2)
      causes.push(fieldInvalid("series.count", series.count ?? 0, "should be at least 2"));
    if (isEmpty(series.lastObservedTime)) causes.push(fieldRequired("series.lastObservedTime", ""));
  }
  if (creating)
    for (const field of [
      "deprecatedFirstTimestamp",
      "deprecatedLastTimestamp",
      "deprecatedCount",
      "deprecatedSource",
    ])
      if (!isEmpty(object[field])) causes.push(fieldInvalid(field, "", "needs to be unset"));
  return causes;
}
