import type { JsonValue, Policy, Rule } from "@kyverno-ts/api";
import { autogenRules } from "../autogen/index.js";
import type { CelEnvironment } from "../cel/env.js";
import { type CompiledCelRule, compileCelRule } from "../cel-policies/classic-rule.js";
import type { CompileIssue, CompileResult } from "../engine-types.js";
import type { Jmespath } from "../jmespath/index.js";
import { escapePointer } from "../variables/substitute.js";
import { makeCompiled } from "./compiled.js";

const VARIABLE = /(?:^|[^\\])\{\{(-?)((?:\{[^{}]*\}|[^{}])*)\}\}/g;

/** Collects syntax errors of every `{{ }}` expression in a rule (unknown functions included). */
function checkExpressions(
  jp: Jmespath,
  value: JsonValue | undefined,
  path: string,
  issues: CompileIssue[],
): void {
  if (typeof value === "string") {
    for (const m of value.matchAll(VARIABLE)) {
      const expr = (m[2] ?? "").trim();
      if (expr === "@" || expr === "") continue;
      const err = jp.check(expr);
      if (err !== undefined) issues.push({ path, message: `invalid JMESPath expression "${expr}": ${err}` });
    }
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => {
      checkExpressions(jp, v, `${path}[${i}]`, issues);
    });
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      checkExpressions(
        jp,
        v,
        /^[A-Za-z_][\w]*$/.test(k) ? `${path}.${k}` : `${path}["${escapePointer(k)}"]`,
        issues,
      );
    }
  }
}

/** Checks bare JMESPath fields (foreach `list`, context `jmesPath`) that are expressions without braces. */
function checkBareExpressions(jp: Jmespath, rule: Rule, path: string, issues: CompileIssue[]): void {
  const visitForeach = (list: unknown, p: string): void => {
    if (!Array.isArray(list)) return;
    list.forEach((fe: { list?: unknown; foreach?: unknown }, i) => {
      if (typeof fe.list === "string" && !fe.list.includes("{{")) {
        const err = jp.check(fe.list);
        if (err !== undefined)
          issues.push({
            path: `${p}[${i}].list`,
            message: `invalid JMESPath expression "${fe.list}": ${err}`,
          });
      }
      visitForeach(fe.foreach, `${p}[${i}].foreach`);
    });
  };
  visitForeach(rule.validate?.foreach, `${path}.validate.foreach`);
  rule.context?.forEach((entry, i) => {
    const expr = entry.variable?.jmesPath ?? entry.apiCall?.jmesPath ?? entry.globalReference?.jmesPath;
    if (expr && !expr.includes("{{")) {
      const err = jp.check(expr);
      if (err !== undefined)
        issues.push({
          path: `${path}.context[${i}]`,
          message: `invalid JMESPath expression "${expr}": ${err}`,
        });
    }
  });
}

/**
 * Compiles a loaded policy: expands autogen rules and checks every JMESPath expression once, so
 * evaluation never meets a syntax error. Returns the issues with their field paths instead of throwing.
 */
export function compilePolicy(jp: Jmespath, cel: CelEnvironment, policy: Policy): CompileResult {
  const issues: CompileIssue[] = [];
  policy.spec.rules.forEach((rule, i) => {
    const path = `spec.rules[${i}]`;
    checkExpressions(jp, rule as unknown as JsonValue, path, issues);
    checkBareExpressions(jp, rule, path, issues);
  });
  if (issues.length > 0) return { ok: false, issues };
  const rules = autogenRules(policy);
  // validate.cel rules, autogen variants included, are compiled once here.
  const celRules = new Map<Rule, CompiledCelRule>();
  for (const rule of rules) {
    if (rule.validate?.cel === undefined) continue;
    const index = policy.spec.rules.findIndex((r) => r.name === rule.name);
    const path = index >= 0 ? `spec.rules[${index}]` : `autogen rule ${rule.name}`;
    const compiled = compileCelRule(cel, rule, path, issues);
    if (compiled !== undefined) celRules.set(rule, compiled);
  }
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, policy: makeCompiled(policy, rules, celRules) };
}
