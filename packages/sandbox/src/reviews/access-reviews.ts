/**
 * authorization.k8s.io/v1 reviews, answered by the sandbox's authorizer as kube-apiserver answers them:
 * SubjectAccessReview (any user), LocalSubjectAccessReview (any user, in the URL's namespace),
 * SelfSubjectAccessReview (`kubectl auth can-i`) and SelfSubjectRulesReview (`kubectl auth can-i --list`).
 */
import type { JsonObject } from "@kyverno-ts/api";
import type { RequestUser } from "../admission/types.js";
import { sendJson } from "../http/respond.js";
import { badRequest, fieldInvalid, invalid, type StatusCause } from "../http/status.js";
import { asObject } from "../objects/meta.js";
import type { Authorizer } from "../rbac/authorizer.js";
import type { PolicyRule, RequestAttributes } from "../rbac/rules.js";
import type { ResourceRequest } from "../verbs/context.js";
import { asResourceObject, readJson } from "../verbs/decode.js";

const GROUP = "authorization.k8s.io";
const str = (o: JsonObject | undefined, k: string): string =>
  typeof o?.[k] === "string" ? (o[k] as string) : "";
const strings = (o: JsonObject, k: string): string[] =>
  Array.isArray(o[k]) ? (o[k] as unknown[]).filter((v): v is string => typeof v === "string") : [];

/** The attributes a review's spec asks about, or the 422 causes of a spec naming none or both. */
function attributesOf(spec: JsonObject): RequestAttributes | StatusCause[] {
  const resource = asObject(spec.resourceAttributes ?? undefined);
  const nonResource = asObject(spec.nonResourceAttributes ?? undefined);
  if ((resource === undefined) === (nonResource === undefined))
    return [
      fieldInvalid(
        "spec.resourceAttributes",
        resource === undefined ? "null" : "object",
        "exactly one of nonResourceAttributes or resourceAttributes must be specified",
      ),
    ];
  if (nonResource !== undefined)
    return { kind: "nonResource", verb: str(nonResource, "verb"), path: str(nonResource, "path") };
  return {
    kind: "resource",
    verb: str(resource, "verb"),
    group: str(resource, "group"),
    version: str(resource, "version"),
    resource: str(resource, "resource"),
    subresource: str(resource, "subresource"),
    namespace: str(resource, "namespace"),
    name: str(resource, "name"),
  };
}

function decisionStatus(
  authorizer: Authorizer,
  user: RequestUser,
  attributes: RequestAttributes,
): JsonObject {
  const decision = authorizer.authorize(user, attributes);
  const status: JsonObject = { allowed: decision.allowed };
  if (decision.reason !== "") status.reason = decision.reason;
  return status;
}

function respond(request: ResourceRequest, review: JsonObject, status: JsonObject): void {
  const metadata = { ...(asObject(review.metadata) ?? {}), creationTimestamp: null };
  sendJson(request.res, 201, { ...review, metadata, status });
}

/** POST of any authorization.k8s.io/v1 review. */
export async function handleAccessReview(request: ResourceRequest, authorizer: Authorizer): Promise<void> {
  const kind = request.resource.kind;
  const review = asResourceObject(request, await readJson(request, kind));
  const spec = asObject(review.spec) ?? {};
  if (kind === "SelfSubjectRulesReview") {
    respond(request, review, rulesStatus(authorizer, request.user, str(spec, "namespace")));
    return;
  }
  const attributes = attributesOf(spec);
  if (Array.isArray(attributes)) throw invalid(GROUP, kind, "", attributes);
  if (kind === "SelfSubjectAccessReview") {
    respond(request, review, decisionStatus(authorizer, request.user, attributes));
    return;
  }
  if (kind === "LocalSubjectAccessReview") {
    if (attributes.kind === "nonResource")
      throw invalid(GROUP, kind, "", [
        fieldInvalid("spec.nonResourceAttributes", "object", "disallowed on this kind of request"),
      ]);
    if (attributes.namespace !== request.namespace)
      throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${request.namespace}`);
  }
  const user = subjectOf(spec);
  if (user.username === "" && user.groups.length === 0)
    throw invalid(GROUP, kind, "", [
      fieldInvalid("spec.user", "", "at least one of user or group must be specified"),
    ]);
  respond(request, review, decisionStatus(authorizer, user, attributes));
}

function subjectOf(spec: JsonObject): RequestUser {
  const user: RequestUser = { username: str(spec, "user"), groups: strings(spec, "groups") };
  if (str(spec, "uid") !== "") user.uid = str(spec, "uid");
  const extra = asObject(spec.extra);
  if (extra !== undefined) {
    user.extra = {};
    for (const [key, values] of Object.entries(extra))
      user.extra[key] = Array.isArray(values) ? values.filter((v): v is string => typeof v === "string") : [];
  }
  return user;
}

function resourceRule(rule: PolicyRule): JsonObject {
  const out: JsonObject = { verbs: [...rule.verbs] };
  if (rule.apiGroups !== undefined) out.apiGroups = [...rule.apiGroups];
  if (rule.resources !== undefined) out.resources = [...rule.resources];
  if (rule.resourceNames !== undefined && rule.resourceNames.length > 0)
    out.resourceNames = [...rule.resourceNames];
  return out;
}

function rulesStatus(authorizer: Authorizer, user: RequestUser, namespace: string): JsonObject {
  const rules = authorizer.rulesFor(user, namespace);
  const status: JsonObject = {
    resourceRules: rules.resourceRules.map(resourceRule),
    nonResourceRules: rules.nonResourceRules.map((r) => ({
      verbs: [...r.verbs],
      nonResourceURLs: [...(r.nonResourceURLs ?? [])],
    })),
    incomplete: rules.errors.length > 0,
  };
  if (rules.errors.length > 0) status.evaluationError = rules.errors.join(", ");
  return status;
}
