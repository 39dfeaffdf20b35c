/**
 * `POST …/serviceaccounts/<name>/token` (TokenRequest, `kubectl create token`): a signed token bound to
 * the ServiceAccount (and optionally a Secret or Pod) with audiences and an expiry, validated and
 * defaulted as kube-apiserver does (default 1 h, at least 10 minutes, at most 2^32 seconds).
 */
import type { JsonObject } from "@kyverno-ts/api";
import { sendJson } from "../http/respond.js";
import { badRequest, fieldInvalid, fieldNotSupported, invalid, notFound } from "../http/status.js";
import { asObject, metaString, timestamp } from "../objects/meta.js";
import { admit, operationOptions } from "../verbs/admit.js";
import type { ApiEnv, ResourceRequest } from "../verbs/context.js";
import { asResourceObject, readJson } from "../verbs/decode.js";
import { currentObject } from "../verbs/update.js";
import { API_AUDIENCE, type BoundObject, type ServiceAccountTokens } from "./service-account-tokens.js";

const GROUP = "authentication.k8s.io";
const KIND = { apiVersion: `${GROUP}/v1`, kind: "TokenRequest" };
const MIN_SECONDS = 600;
const MAX_SECONDS = 2 ** 32;

function boundObjectOf(
  env: ApiEnv,
  namespace: string,
  ref: JsonObject | undefined,
  name: string,
): BoundObject | undefined {
  if (ref === undefined) return undefined;
  const kind = typeof ref.kind === "string" ? ref.kind : "";
  const refName = typeof ref.name === "string" ? ref.name : "";
  if (kind !== "Secret" && kind !== "Pod")
    throw invalid(GROUP, "TokenRequest", name, [
      fieldNotSupported("spec.boundObjectRef.kind", kind, ["Pod", "Secret"]),
    ]);
  const storageKey = kind === "Secret" ? "secrets" : "pods";
  const object = env.store.get(storageKey, namespace, refName);
  if (object === undefined) throw notFound({ group: "", resource: storageKey }, refName);
  const uid = typeof ref.uid === "string" ? ref.uid : "";
  if (uid !== "" && uid !== metaString(object, "uid"))
    throw badRequest(
      `the UID in the bound object reference (${uid}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  return { kind, name: refName, uid: metaString(object, "uid") };
}

/** Handles the TokenRequest subresource of a ServiceAccount. */
export async function handleTokenRequest(
  env: ApiEnv,
  request: ResourceRequest,
  tokens: ServiceAccountTokens,
): Promise<void> {
  const serviceAccount = currentObject(env, request);
  const body = asResourceObject(request, await readJson(request, "TokenRequest"), KIND);
  const spec = asObject(body.spec) ?? {};
  const seconds = typeof spec.expirationSeconds === "number" ? spec.expirationSeconds : 3600;
  if (seconds < MIN_SECONDS)
    throw invalid(GROUP, "TokenRequest", request.name, [
      fieldInvalid("spec.expirationSeconds", seconds, "may not specify a duration less than 10 minutes"),
    ]);
  if (seconds > MAX_SECONDS)
    throw invalid(GROUP, "TokenRequest", request.name, [
      fieldInvalid("spec.expirationSeconds", seconds, "may not specify a duration larger than 2^32 seconds"),
    ]);
  const given = Array.isArray(spec.audiences)
    ? spec.audiences.filter((a): a is string => typeof a === "string")
    : [];
  const audiences = given.length === 0 ? [API_AUDIENCE] : given;
  const boundObject = boundObjectOf(
    env,
    request.namespace,
    asObject(spec.boundObjectRef ?? undefined),
    request.name,
  );
  const tokenRequest: JsonObject = {
    ...KIND,
    metadata: { name: request.name, namespace: request.namespace, creationTimestamp: null },
    spec: { audiences, expirationSeconds: seconds, boundObjectRef: spec.boundObjectRef ?? null },
    status: { token: "", expirationTimestamp: null },
  };
  await admit(env, request, {
    operation: "CREATE",
    object: tokenRequest,
    oldObject: null,
    options: operationOptions("CreateOptions", request),
    name: request.name,
    namespace: request.namespace,
    kind: { group: GROUP, version: "v1", kind: "TokenRequest" },
  });
  const issued = tokens.issue(serviceAccount, {
    audiences,
    expirationSeconds: seconds,
    ...(boundObject === undefined ? {} : { boundObject }),
  });
  sendJson(request.res, 201, {
    ...tokenRequest,
    status: { token: issued.token, expirationTimestamp: timestamp(issued.expiration) },
  });
}
