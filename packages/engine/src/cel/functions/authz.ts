/**
 * Kubernetes' authorizer library (`authorizer.group('apps').resource('deployments')
 * .namespace('ns').check('create').allowed()`, `authorizer.serviceAccount(ns, name)`,
 * `authorizer.path('/healthz')`): the decisions come from the session's `ContextLoader.authorize`;
 * without one, every check is an error decision (`errored()` true, `allowed()` false), never an
 * allow.
 */
import { type CelFunc, CelScalar, type CelValue, celMethod, isCelMap } from "@bufbuild/cel";
import type { JsonValue } from "@kyverno-ts/api";
import type { AuthorizationCheck } from "../../engine-types.js";
import type { SessionSlot } from "../session.js";
import { opaque, opaquePayload, toJson } from "../values.js";

const { DYN, STRING, BOOL } = CelScalar;

type Fields = { [key: string]: JsonValue };

const AUTHORIZER = "authorizer";
const CHECK = "authzCheck";
const DECISION = "authzDecision";

/** The `authorizer` binding for a requester. */
export function authorizerFor(user: string, groups: readonly string[]): CelValue {
  return opaque(AUTHORIZER, { user, groups: [...groups] });
}

function fieldsOf(value: CelValue, type: string): Fields | undefined {
  const payload = opaquePayload(value, type);
  if (!isCelMap(payload)) return undefined;
  const json = toJson(payload);
  return json !== null && typeof json === "object" && !Array.isArray(json) ? json : undefined;
}

/** The builder steps: on the authorizer they start a check, on a check they add a field. */
function step(field: string): CelFunc {
  return celMethod(field, DYN, [STRING], DYN, function (value) {
    const fields = fieldsOf(this, AUTHORIZER) ?? fieldsOf(this, CHECK);
    if (fields === undefined) throw new Error(`no such overload: ${field} on a non-authorizer value`);
    return opaque(CHECK, { ...fields, [field]: value });
  });
}

function decision(value: CelValue): Fields {
  const fields = fieldsOf(value, DECISION);
  if (fields === undefined) throw new Error("no such overload: expected an authorization decision");
  return fields;
}

/** The authorizer's functions; decisions are asked of `slot`'s session loader. */
export function authzFunctions(slot: SessionSlot): CelFunc[] {
  return [
    step("group"),
    step("resource"),
    step("subresource"),
    step("namespace"),
    step("name"),
    celMethod("path", DYN, [STRING], DYN, function (path) {
      const fields = fieldsOf(this, AUTHORIZER);
      if (fields === undefined) throw new Error("no such overload: path on a non-authorizer value");
      return opaque(CHECK, { ...fields, path });
    }),
    celMethod("serviceAccount", DYN, [STRING, STRING], DYN, function (namespace, name) {
      if (fieldsOf(this, AUTHORIZER) === undefined) throw new Error("no such overload: serviceAccount");
      return authorizerFor(`system:serviceaccount:${namespace}:${name}`, [
        "system:serviceaccounts",
        `system:serviceaccounts:${namespace}`,
        "system:authenticated",
      ]);
    }),
    celMethod("check", DYN, [STRING], DYN, function (verb) {
      const fields = fieldsOf(this, CHECK);
      if (fields === undefined) throw new Error("no such overload: check on a non-authorizer value");
      const groups = Array.isArray(fields.groups) ? fields.groups.map(String) : [];
      const check: AuthorizationCheck = { ...(fields as Omit<AuthorizationCheck, "groups">), groups, verb };
      const result = slot.current?.loader.authorize?.(check);
      if (result === undefined)
        return opaque(DECISION, { allowed: false, error: "no authorizer is configured", reason: "" });
      if (!result.ok) return opaque(DECISION, { allowed: false, error: result.error, reason: "" });
      const answer = result.value;
      const allowed =
        answer !== null && typeof answer === "object" && !Array.isArray(answer) && answer.allowed === true;
      const reason =
        answer !== null && typeof answer === "object" && !Array.isArray(answer)
          ? String(answer.reason ?? "")
          : "";
      return opaque(DECISION, { allowed, error: "", reason });
    }),
    celMethod("allowed", DYN, [], BOOL, function () {
      return decision(this).allowed === true;
    }),
    celMethod("errored", DYN, [], BOOL, function () {
      return String(decision(this).error ?? "") !== "";
    }),
    celMethod("reason", DYN, [], STRING, function () {
      return String(decision(this).reason ?? "");
    }),
    celMethod("error", DYN, [], STRING, function () {
      return String(decision(this).error ?? "");
    }),
  ];
}
