/** Protobuf schemas of apimachinery's meta/v1 types (k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto). */
import { bool, i64, map, msg, type Schema, str, time } from "./protobuf-schema.js";

export const TYPE_META: Schema = { 1: str("apiVersion"), 2: str("kind") };

export const OWNER_REFERENCE: Schema = {
  1: str("kind", "keep"),
  3: str("name", "keep"),
  4: str("uid", "keep"),
  5: str("apiVersion", "keep"),
  6: bool("controller", "keep"),
  7: bool("blockOwnerDeletion", "keep"),
};

/** ObjectMeta (`managedFields`, 17, is not decoded: the sandbox does not keep it). */
export const OBJECT_META: Schema = {
  1: str("name"),
  2: str("generateName"),
  3: str("namespace"),
  4: str("selfLink"),
  5: str("uid"),
  6: str("resourceVersion"),
  7: i64("generation"),
  8: time("creationTimestamp"),
  9: time("deletionTimestamp"),
  10: i64("deletionGracePeriodSeconds", "keep"),
  11: map("labels"),
  12: map("annotations"),
  13: msg("ownerReferences", () => OWNER_REFERENCE, "list"),
  14: str("finalizers", "list"),
};

export const metadata = msg("metadata", () => OBJECT_META);

export const LABEL_SELECTOR_REQUIREMENT: Schema = {
  1: str("key", "keep"),
  2: str("operator", "keep"),
  3: str("values", "list"),
};

export const LABEL_SELECTOR: Schema = {
  1: map("matchLabels"),
  2: msg("matchExpressions", () => LABEL_SELECTOR_REQUIREMENT, "list"),
};

/** core/v1 LocalObjectReference (`{name}`), embedded in many references. */
export const LOCAL_OBJECT_REFERENCE: Schema = { 1: str("name") };

/** core/v1 ObjectReference. */
export const OBJECT_REFERENCE: Schema = {
  1: str("kind"),
  2: str("namespace"),
  3: str("name"),
  4: str("uid"),
  5: str("apiVersion"),
  6: str("resourceVersion"),
  7: str("fieldPath"),
};

/** meta/v1 Condition. */
export const CONDITION: Schema = {
  1: str("type", "keep"),
  2: str("status", "keep"),
  3: i64("observedGeneration"),
  4: time("lastTransitionTime"),
  5: str("reason", "keep"),
  6: str("message", "keep"),
};

/** meta/v1 Preconditions. */
export const PRECONDITIONS: Schema = { 1: str("uid"), 2: str("resourceVersion") };

/** meta/v1 DeleteOptions, the body client-go sends with a DELETE when it speaks protobuf (Helm does). */
export const DELETE_OPTIONS: Schema = {
  1: i64("gracePeriodSeconds", "keep"),
  2: msg("preconditions", () => PRECONDITIONS),
  3: bool("orphanDependents", "keep"),
  4: str("propagationPolicy"),
  5: str("dryRun", "list"),
};
