/**
 * Validate rules: deny, pattern, anyPattern and foreach blocks, podSecurity, validate.cel, and the rules
 * the engine does not evaluate yet (verifyImages, validate.manifests), which answer `error`.
 */
import type { JsonValue } from "@kyverno-ts/api";
import { evaluateCelRule } from "../cel-policies/classic-rule.js";
import type { RuleHandler } from "../pipeline/handler.js";
import { unsupportedRuleMessage } from "../response/messages.js";
import { podSecurityOutcome } from "../validate/pod-security.js";
import { evaluateBlock, type ValidateEnv } from "../validate/validate-rule.js";

/** The validate pass (`Engine.validate`). */
export const validateHandler: RuleHandler = {
  type: "Validation",
  typeOf: (compiled) => (compiled.rule.verifyImages === undefined ? "Validation" : "ImageVerify"),
  failureActions: true,
  handles: (compiled) => compiled.validation !== undefined,
  process({ rule: compiled, scope, req, env, preset, podSecurityExcludes }) {
    const validation = compiled.validation;
    if (validation === undefined) return undefined;
    const ruleName = compiled.rule.name;
    if (validation.unsupported !== undefined)
      return { status: "error", message: unsupportedRuleMessage(validation.unsupported) };
    if (validation.cel !== undefined) {
      const outcome = evaluateCelRule(validation.cel, ruleName, req, {
        values: env.celValues,
        loader: env.loader,
        now: new Date(env.now),
        namespaceLabels: env.namespaceLabels,
        budget: scope.budget,
      });
      return outcome;
    }
    const podSecurity = validation.podSecurity;
    if (podSecurity !== undefined) {
      // As pattern checks, Pod Security is not checked on a deleted resource (upstream skips it):
      // deleting a non-compliant Pod is never denied by it.
      if (scope.isDelete) return undefined;
      const exclude = [...(podSecurity.exclude ?? []), ...podSecurityExcludes];
      return podSecurityOutcome(ruleName, podSecurity, req.resource as unknown as JsonValue, exclude);
    }
    const object = (scope.isDelete
      ? (req.oldResource ?? req.resource)
      : req.resource) as unknown as JsonValue;
    const validateEnv: ValidateEnv = {
      ruleName,
      message: validation.message,
      passed: validation.passed,
      loader: env.loader,
      preset,
      resource: object,
    };
    return evaluateBlock(scope, validation.block, validateEnv, env.memo.validatePaths, undefined, 0);
  },
};
