/**
 * The per-request recorders of `kyverno_policy_results_total` and
 * `kyverno_policy_execution_duration_seconds` (see `AdmissionMetrics.ruleResults`).
 */
import type { HistogramFamily, HistogramSeries } from "./families.js";
import type { PolicyLabels, RequestRuleLabels, RuleResultRecorder } from "./metrics.js";

const RESULTS = ["pass", "fail", "warn", "error", "skip"] as const;
const RULE_TYPES = ["validate", "mutate", "generate"] as const;
/** Slots per rule: result × validation mode × rule type. */
const SLOTS = RESULTS.length * 2 * RULE_TYPES.length;

function slotOf(result: string, mode: "enforce" | "audit", ruleType: string): number {
  const r = RESULTS.indexOf(result as (typeof RESULTS)[number]);
  const t = RULE_TYPES.indexOf(ruleType as (typeof RULE_TYPES)[number]);
  if (r < 0 || t < 0) return -1;
  return (r * 2 + (mode === "enforce" ? 0 : 1)) * RULE_TYPES.length + t;
}

/**
 * Recorders of `kyverno_policy_results_total` / `..._execution_duration_seconds`, one per request
 * label set (bounded like the series). A recorder keeps, per policy labels object and rule name, the
 * series of each (result, mode, rule type), so recording a rule is a few lookups by identity instead
 * of building and hashing a thirteen-label key per rule.
 */
export function createRecorderCache(
  family: HistogramFamily,
  maxSeries: number,
): { get(request: RequestRuleLabels): RuleResultRecorder } {
  const recorders = new Map<string, RuleResultRecorder>();
  const create = (req: RequestRuleLabels): RuleResultRecorder => {
    const dryRun = req.dryRun ? "true" : "false";
    const operation = req.operation.toLowerCase();
    const suffix = `${req.resourceKind}\u0000${req.resourceNamespace}\u0000${req.operation}\u0000${dryRun}`;
    const byPolicy = new WeakMap<PolicyLabels, Map<string, (HistogramSeries | undefined | null)[]>>();
    const resolve = (
      p: PolicyLabels,
      rule: string,
      result: string,
      mode: "enforce" | "audit",
      ruleType: string,
    ): HistogramSeries | undefined =>
      family.series(
        `${mode}\u0000${p.type}\u0000${p.background}\u0000${p.namespace}\u0000${p.name}\u0000${rule}\u0000${result}\u0000${ruleType}\u0000${suffix}`,
        () => [
          mode,
          p.type,
          String(p.background),
          p.namespace,
          p.name,
          req.resourceKind,
          req.resourceNamespace,
          operation,
          rule,
          result,
          ruleType,
          "admission_request",
          dryRun,
        ],
      );
    return {
      record(policy, rule, result, mode, ruleType, seconds) {
        const slot = slotOf(result, mode, ruleType);
        if (slot < 0) {
          resolve(policy, rule, result, mode, ruleType)?.observe(seconds);
          return;
        }
        let rules = byPolicy.get(policy);
        if (rules === undefined) {
          rules = new Map();
          byPolicy.set(policy, rules);
        }
        let slots = rules.get(rule);
        if (slots === undefined) {
          slots = new Array<HistogramSeries | undefined | null>(SLOTS).fill(null);
          rules.set(rule, slots);
        }
        let series = slots[slot];
        // null: not looked up yet; undefined: the family was full (looked up again next time).
        if (series === null || series === undefined) {
          series = resolve(policy, rule, result, mode, ruleType);
          slots[slot] = series;
        }
        series?.observe(seconds);
      },
    };
  };
  return {
    get(req) {
      const key = `${req.resourceKind}\u0000${req.resourceNamespace}\u0000${req.operation}\u0000${req.dryRun}`;
      let recorder = recorders.get(key);
      if (recorder === undefined) {
        recorder = create(req);
        // Bounded like the series: past the bound, recorders are built per request and not kept.
        if (recorders.size < maxSeries) recorders.set(key, recorder);
      }
      return recorder;
    },
  };
}
