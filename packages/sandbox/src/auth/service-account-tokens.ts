/**
 * Service account tokens as kube-apiserver issues and checks them: bound tokens (TokenRequest) carry
 * audiences, an expiry and the ServiceAccount's uid (and optionally a bound Secret or Pod); legacy
 * tokens (`kubernetes.io/service-account-token` Secrets) name the Secret. A token only authenticates
 * while what it is bound to still exists with the same uid, so a deleted or recreated ServiceAccount
 * makes its tokens invalid (401).
 */
import type { JsonObject } from "@kyverno-ts/api";
import type { RequestUser } from "../admission/types.js";
import { asObject, metaString } from "../objects/meta.js";
import type { ObjectStore } from "../store/store.js";
import { effectiveGroups } from "./groups.js";
import type { TokenSigner } from "./jwt.js";

/** The issuer and default audience of bound tokens (what kind clusters use). */
export const API_AUDIENCE = "https://kubernetes.default.svc.cluster.local";
const LEGACY_ISSUER = "kubernetes/serviceaccount";
const LEGACY = "kubernetes.io/serviceaccount/";

/** The object a bound token is tied to besides its ServiceAccount. */
export interface BoundObject {
  kind: "Secret" | "Pod";
  name: string;
  uid: string;
}

/** What a token request asks for. */
export interface TokenRequestSpec {
  audiences: string[];
  expirationSeconds: number;
  boundObject?: BoundObject;
}

/** The outcome of checking a token: the user, or why it is not valid. */
export type TokenCheck = { ok: true; user: RequestUser; audiences: string[] } | { ok: false; error: string };

/** Issues and authenticates service account tokens. */
export interface ServiceAccountTokens {
  /** A bound token for `serviceAccount` and its expiry. */
  issue(serviceAccount: JsonObject, spec: TokenRequestSpec): { token: string; expiration: Date };
  /** The legacy token kube-controller-manager writes into a service account token Secret. */
  legacy(serviceAccount: JsonObject, secret: JsonObject): string;
  /** Checks a token against `audiences` (default: the API server's). `undefined`: not a JWT signed here. */
  authenticate(token: string, audiences?: readonly string[]): TokenCheck | undefined;
}

const str = (o: JsonObject | undefined, k: string): string =>
  typeof o?.[k] === "string" ? (o[k] as string) : "";
const num = (o: JsonObject, k: string): number | undefined =>
  typeof o[k] === "number" ? (o[k] as number) : undefined;

/** The user a service account token authenticates as. */
function userOf(namespace: string, sa: JsonObject, extra?: Record<string, string[]>): RequestUser {
  const username = `system:serviceaccount:${namespace}:${metaString(sa, "name")}`;
  const user: RequestUser = { username, uid: metaString(sa, "uid"), groups: effectiveGroups(username, []) };
  if (extra !== undefined) user.extra = extra;
  return user;
}

/** The ServiceAccount a token names, if it still exists with the same uid; else why not. */
function liveServiceAccount(
  store: ObjectStore,
  namespace: string,
  name: string,
  uid: string,
): JsonObject | string {
  const sa = store.get("serviceaccounts", namespace, name);
  if (sa === undefined) return `serviceaccounts ${JSON.stringify(name)} not found`;
  if (uid !== "" && metaString(sa, "uid") !== uid)
    return `service account UID (${metaString(sa, "uid")}) does not match claim (${uid})`;
  if (metaString(sa, "deletionTimestamp") !== "")
    return `service account ${namespace}/${name} has been deleted`;
  return sa;
}

/** A bound token's validity period and audiences: the audiences it is valid for, or why it is not. */
function validAudiences(claims: JsonObject, audiences: readonly string[], now: Date): string[] | string {
  const seconds = now.getTime() / 1000;
  const exp = num(claims, "exp");
  if (exp === undefined || seconds > exp) return "service account token has expired";
  const nbf = num(claims, "nbf");
  if (nbf !== undefined && seconds + 60 < nbf) return "service account token is not valid yet";
  const tokenAudiences = Array.isArray(claims.aud) ? claims.aud.filter((a) => typeof a === "string") : [];
  const matched = audiences.filter((a) => tokenAudiences.includes(a));
  if (matched.length === 0)
    return `token audiences ${JSON.stringify(tokenAudiences)} is invalid for the target audiences ${JSON.stringify(audiences)}`;
  return matched;
}

/** Checks a bound (TokenRequest) token: time, audiences, and what it is bound to still existing. */
function checkBound(
  store: ObjectStore,
  now: Date,
  claims: JsonObject,
  audiences: readonly string[],
): TokenCheck {
  const matched = validAudiences(claims, audiences, now);
  if (typeof matched === "string") return { ok: false, error: matched };
  const k8s = asObject(claims["kubernetes.io"]) ?? {};
  const namespace = str(k8s, "namespace");
  const saClaim = asObject(k8s.serviceaccount);
  const sa = liveServiceAccount(store, namespace, str(saClaim, "name"), str(saClaim, "uid"));
  if (typeof sa === "string") return { ok: false, error: sa };
  for (const [field, storageKey] of [
    ["secret", "secrets"],
    ["pod", "pods"],
  ] as const) {
    const ref = asObject(k8s[field]);
    if (ref === undefined) continue;
    const bound = store.get(storageKey, namespace, str(ref, "name"));
    if (bound === undefined || metaString(bound, "uid") !== str(ref, "uid"))
      return { ok: false, error: `${storageKey} ${JSON.stringify(str(ref, "name"))} not found` };
  }
  const extra = { "authentication.kubernetes.io/credential-id": [`JTI=${str(claims, "jti")}`] };
  return { ok: true, user: userOf(namespace, sa, extra), audiences: matched };
}

/** Checks a legacy token: its Secret still holds it and its ServiceAccount still exists. */
function checkLegacy(
  store: ObjectStore,
  token: string,
  claims: JsonObject,
  audiences: readonly string[],
): TokenCheck {
  const namespace = str(claims, `${LEGACY}namespace`);
  const secret = store.get("secrets", namespace, str(claims, `${LEGACY}secret.name`));
  if (secret === undefined)
    return { ok: false, error: `secrets ${JSON.stringify(str(claims, `${LEGACY}secret.name`))} not found` };
  const stored = str(asObject(secret.data), "token");
  if (Buffer.from(stored, "base64").toString("utf8") !== token)
    return { ok: false, error: "token does not match the service account token secret" };
  const sa = liveServiceAccount(
    store,
    namespace,
    str(claims, `${LEGACY}service-account.name`),
    str(claims, `${LEGACY}service-account.uid`),
  );
  if (typeof sa === "string") return { ok: false, error: sa };
  return { ok: true, user: userOf(namespace, sa), audiences: [...audiences] };
}

/** Creates the token service over `store`, signing with `signer` and reading the time from `now`. */
export function createServiceAccountTokens(options: {
  signer: TokenSigner;
  store: ObjectStore;
  now: () => Date;
  newId: () => string;
}): ServiceAccountTokens {
  const { signer, store, now } = options;

  return {
    issue(serviceAccount, spec) {
      const issuedAt = Math.floor(now().getTime() / 1000);
      const exp = issuedAt + spec.expirationSeconds;
      const namespace = metaString(serviceAccount, "namespace");
      const k8s: JsonObject = {
        namespace,
        serviceaccount: { name: metaString(serviceAccount, "name"), uid: metaString(serviceAccount, "uid") },
      };
      if (spec.boundObject !== undefined)
        k8s[spec.boundObject.kind === "Secret" ? "secret" : "pod"] = {
          name: spec.boundObject.name,
          uid: spec.boundObject.uid,
        };
      const token = signer.sign({
        aud: spec.audiences,
        exp,
        iat: issuedAt,
        iss: API_AUDIENCE,
        jti: options.newId(),
        "kubernetes.io": k8s,
        nbf: issuedAt,
        sub: `system:serviceaccount:${namespace}:${metaString(serviceAccount, "name")}`,
      });
      return { token, expiration: new Date(exp * 1000) };
    },
    legacy(serviceAccount, secret) {
      const namespace = metaString(secret, "namespace");
      return signer.sign({
        iss: LEGACY_ISSUER,
        [`${LEGACY}namespace`]: namespace,
        [`${LEGACY}secret.name`]: metaString(secret, "name"),
        [`${LEGACY}service-account.name`]: metaString(serviceAccount, "name"),
        [`${LEGACY}service-account.uid`]: metaString(serviceAccount, "uid"),
        sub: `system:serviceaccount:${namespace}:${metaString(serviceAccount, "name")}`,
      });
    },
    authenticate(token, audiences = [API_AUDIENCE]) {
      const claims = signer.verify(token);
      if (claims === undefined) return undefined;
      const issuer = str(claims, "iss");
      if (issuer === API_AUDIENCE) return checkBound(store, now(), claims, audiences);
      if (issuer === LEGACY_ISSUER) return checkLegacy(store, token, claims, audiences);
      return { ok: false, error: `token issuer ${JSON.stringify(issuer)} is not trusted` };
    },
  };
}
