/**
 * authentication.k8s.io/v1 reviews: TokenReview (is this token valid, and whose is it?) and
 * SelfSubjectReview (`kubectl auth whoami`: who am I, after impersonation?).
 */
import type { JsonObject } from "@kyverno-ts/api";
import type { RequestUser } from "../admission/types.js";
import type { Authenticator } from "../auth/authenticator.js";
import { sendJson } from "../http/respond.js";
import { asObject } from "../objects/meta.js";
import type { ResourceRequest } from "../verbs/context.js";
import { asResourceObject, readJson } from "../verbs/decode.js";

/** `UserInfo` as the review kinds carry it. */
export function userInfo(user: RequestUser): JsonObject {
  const info: JsonObject = { username: user.username };
  if (user.uid !== undefined) info.uid = user.uid;
  info.groups = [...user.groups];
  if (user.extra !== undefined) info.extra = { ...user.extra };
  return info;
}

/** POST of a TokenReview or SelfSubjectReview. */
export async function handleIdentityReview(
  request: ResourceRequest,
  authenticator: Authenticator,
): Promise<void> {
  const review = asResourceObject(request, await readJson(request, request.resource.kind));
  const metadata = { ...(asObject(review.metadata) ?? {}), creationTimestamp: null };
  if (request.resource.kind === "SelfSubjectReview") {
    sendJson(request.res, 201, { ...review, metadata, status: { userInfo: userInfo(request.user) } });
    return;
  }
  const spec = asObject(review.spec) ?? {};
  const token = typeof spec.token === "string" ? spec.token : "";
  const audiences = Array.isArray(spec.audiences)
    ? spec.audiences.filter((a): a is string => typeof a === "string")
    : [];
  const check = authenticator.review(token, audiences.length === 0 ? undefined : audiences);
  const status: JsonObject = check.ok
    ? { authenticated: true, user: userInfo(check.user), audiences: check.audiences }
    : { user: {}, error: `[invalid bearer token, ${check.error}]` };
  sendJson(request.res, 201, { ...review, metadata, spec: { ...spec }, status });
}
