/**
 * Protobuf schemas of the authentication.k8s.io/v1 and authorization.k8s.io/v1 requests kubectl's typed
 * clients send (`kubectl create token`, `auth whoami`, `auth can-i`; generated.proto of
 * k8s.io/api/authentication/v1 and k8s.io/api/authorization/v1).
 */
import { metadata } from "./protobuf-meta.js";
import { i64, map, msg, type Schema, str } from "./protobuf-schema.js";

const RESOURCE_ATTRIBUTES: Schema = {
  1: str("namespace"),
  2: str("verb"),
  3: str("group"),
  4: str("version"),
  5: str("resource"),
  6: str("subresource"),
  7: str("name"),
};
const NON_RESOURCE_ATTRIBUTES: Schema = { 1: str("path"), 2: str("verb") };
const resourceAttributes = msg("resourceAttributes", () => RESOURCE_ATTRIBUTES);
const nonResourceAttributes = msg("nonResourceAttributes", () => NON_RESOURCE_ATTRIBUTES);
const SUBJECT_ACCESS_REVIEW: Schema = {
  1: metadata,
  2: msg("spec", () => ({
    1: resourceAttributes,
    2: nonResourceAttributes,
    3: str("user"),
    4: str("groups", "list"),
    5: map("extra", () => ({ 1: str("items", "list") })),
    6: str("uid"),
  })),
};

/** Review and token request kinds by `apiVersion/kind`. */
export const AUTH_KINDS: Readonly<Record<string, Schema>> = {
  "authorization.k8s.io/v1/SelfSubjectAccessReview": {
    1: metadata,
    2: msg("spec", () => ({ 1: resourceAttributes, 2: nonResourceAttributes })),
  },
  "authorization.k8s.io/v1/SelfSubjectRulesReview": {
    1: metadata,
    2: msg("spec", () => ({ 1: str("namespace") })),
  },
  "authorization.k8s.io/v1/SubjectAccessReview": SUBJECT_ACCESS_REVIEW,
  "authorization.k8s.io/v1/LocalSubjectAccessReview": SUBJECT_ACCESS_REVIEW,
  "authentication.k8s.io/v1/SelfSubjectReview": { 1: metadata },
  "authentication.k8s.io/v1/TokenReview": {
    1: metadata,
    2: msg("spec", () => ({ 1: str("token"), 2: str("audiences", "list") })),
  },
  "authentication.k8s.io/v1/TokenRequest": {
    1: metadata,
    2: msg("spec", () => ({
      1: str("audiences", "list"),
      3: msg("boundObjectRef", () => ({
        1: str("kind"),
        2: str("apiVersion"),
        3: str("name"),
        4: str("uid"),
      })),
      4: i64("expirationSeconds"),
    })),
  },
};
