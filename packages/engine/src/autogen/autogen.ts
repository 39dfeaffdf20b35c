import type { Policy, Rule } from "@kyverno-ts/api";
import { autogenControllers } from "./controllers.js";
import {
  autogenRuleName,
  expandsRule,
  generateRule,
  isAutogenRuleName,
  retargetAllFilters,
  retargetPodFilters,
} from "./generate.js";
import { mapStrings, rewritePaths, type Target } from "./rewrite.js";

const CRONJOB = "CronJob";

/**
 * The policy's rules followed by the rules autogen generates from its Pod rules, in upstream order:
 * for each rule `autogen-<name>` (Pod controllers other than CronJob, patterns under `spec.template`)
 * then `autogen-cronjob-<name>` (CronJob, under `spec.jobTemplate.spec.template`), with
 * `request.object.spec|metadata` paths moved into the template. Returns the rules unchanged when autogen
 * does not apply; see `autogenControllers` for when it does. Input rules are never mutated.
 */
export function autogenRules(policy: Policy): Rule[] {
  const rules = policy.spec.rules;
  const controllers = autogenControllers(policy);
  if (controllers.length === 0) return [...rules];
  const podControllers = controllers.filter((c) => c !== CRONJOB);
  const withCronJob = controllers.includes(CRONJOB);
  const generated: Rule[] = [];
  for (const rule of rules) {
    if (!expandsRule(rule)) continue;
    if (podControllers.length > 0) {
      const forControllers = controllerRule(rule, podControllers);
      if (forControllers !== undefined) generated.push(rewrite(forControllers, "template"));
    }
    if (withCronJob) {
      // Upstream builds the CronJob rule from the controllers rule, wrapping its pattern once more.
      const base = controllerRule(rule, controllers);
      const cron =
        base &&
        generateRule(autogenRuleName("autogen-cronjob", rule.name), base, {
          templateKey: "jobTemplate",
          shift: "spec/jobTemplate/spec/template",
          kinds: [CRONJOB],
          retarget: retargetAllFilters,
        });
      if (cron !== undefined) generated.push(rewrite(cron, "cronjob"));
    }
  }
  if (generated.length === 0) return [...rules];
  return [...rules.filter((r) => !isAutogenRuleName(r.name)), ...generated];
}

function controllerRule(rule: Rule, kinds: string[]): Rule | undefined {
  return generateRule(autogenRuleName("autogen", rule.name), rule, {
    templateKey: "template",
    shift: "spec/template",
    kinds,
    retarget: retargetPodFilters,
  });
}

/** Moves Pod paths into the template in every string of the rule but its name. */
function rewrite(rule: Rule, target: Target): Rule {
  const cel = rule.validate?.cel !== undefined;
  const { name, ...rest } = rule;
  return { name, ...mapStrings(rest, (s) => rewritePaths(s, target, cel)) };
}
