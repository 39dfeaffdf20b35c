/**
 * The per-request recorders of `kyverno_policy_results_total` and
 * `kyverno_policy_execution_duration_seconds` (see `AdmissionMetrics.ruleResults`).
 */
import type { CounterSeries, HistogramSeries, RecordedFamily } from "./family.js";
import type { PolicyLabels, RequestRuleLabels, RuleResultRecorder } from "./recorder-types.js";

const RESULTS = ["pass", "fail", "warn", "error", "skip"] as const;
const RULE_TYPES = ["validate", "mutate", "generate"] as const;
/** Slots per rule: result × validation mode × rule type. */
const SLOTS = RESULTS.length * 2 * RULE_TYPES.length;
/** Recorders kept (one per resource kind, namespace, operation and dry-run); emptied when full. */
const MAX_RECORDERS = 256;

/** Each result's and rule type's index in its table (looked up per rule, not searched). */
const RESULT_INDEX: ReadonlyMap<string, number> = new Map(RESULTS.map((result, i) => [result, i]));
const RULE_TYPE_INDEX: ReadonlyMap<string, number> = new Map(RULE_TYPES.map((type, i) => [type, i]));

function slotOf(result: string, mode: "enforce" | "audit", ruleType: string): number {
  const r = RESULT_INDEX.get(result);
  const t = RULE_TYPE_INDEX.get(ruleType);
  if (r === undefined || t === undefined) return -1;
  return (r * 2 + (mode === "enforce" ? 0 : 1)) * RULE_TYPES.length + t;
}

/** The two series one rule result goes to (either undefined when its family is disabled or full). */
interface Pair {
  count: CounterSeries | undefined;
  duration: HistogramSeries | undefined;
}

const NOTHING: RuleResultRecorder = { record() {} };

/**
 * Recorders of `kyverno_policy_results_total` / `..._execution_duration_seconds`, one per request
 * label set. A recorder keeps, per policy labels object and rule name, the series of each (result,
 * mode, rule type), so recording a rule is a few lookups by identity instead of building and hashing a
 * thirteen-label key per rule. Requests in a namespace the metrics configuration leaves out get a
 * recorder that records nothing.
 */
export function createRecorderCache(
  results: RecordedFamily<CounterSeries>,
  durations: RecordedFamily<HistogramSeries>,
  acceptNamespace: (namespace: string) => boolean,
): { get(request: RequestRuleLabels): RuleResultRecorder } {
  const recorders = new Map<string, RuleResultRecorder>();
  const create = (req: RequestRuleLabels): RuleResultRecorder => {
    if (!acceptNamespace(req.resourceNamespace)) return NOTHING;
    const dryRun = req.dryRun ? "true" : "false";
    const operation = req.operation.toLowerCase();
    const suffix = `${req.resourceKind}\u0000${req.resourceNamespace}\u0000${req.operation}\u0000${dryRun}`;
    const byPolicy = new WeakMap<PolicyLabels, Map<string, (Pair | null)[]>>();
    const resolve = (
      p: PolicyLabels,
      rule: string,
      result: string,
      mode: "enforce" | "audit",
      ruleType: string,
    ): Pair => {
      const key = `${mode}\u0000${p.type}\u0000${p.background}\u0000${p.namespace}\u0000${p.name}\u0000${rule}\u0000${result}\u0000${ruleType}\u0000${suffix}`;
      const values = () => [
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
      ];
      return { count: results.series(key, values), duration: durations.series(key, values) };
    };
    return {
      record(policy, rule, result, mode, ruleType, seconds) {
        const slot = slotOf(result, mode, ruleType);
        let pair: Pair;
        if (slot < 0) pair = resolve(policy, rule, result, mode, ruleType);
        else {
          let rules = byPolicy.get(policy);
          if (rules === undefined) {
            rules = new Map();
            byPolicy.set(policy, rules);
          }
          let slots = rules.get(rule);
          if (slots === undefined) {
            slots = new Array<Pair | null>(SLOTS).fill(null);
            rules.set(rule, slots);
          }
          pair = slots[slot] ?? resolve(policy, rule, result, mode, ruleType);
          slots[slot] = pair;
        }
        pair.count?.inc();
        pair.duration?.observe(seconds);
      },
    };
  };
  // The last request's labels and recorder: requests in a row mostly share them.
  let last: (RequestRuleLabels & { recorder: RuleResultRecorder }) | undefined;
  return {
    get(req) {
      if (
        last !== undefined &&
        last.resourceKind === req.resourceKind &&
        last.resourceNamespace === req.resourceNamespace &&
        last.operation === req.operation &&
        last.dryRun === req.dryRun
      )
        return last.recorder;
      const key = `${req.resourceKind}\u0000${req.resourceNamespace}\u0000${req.operation}\u0000${req.dryRun}`;
      let recorder = recorders.get(key);
      if (recorder === undefined) {
        recorder = create(req);
        if (recorders.size >= MAX_RECORDERS) recorders.clear();
        recorders.set(key, recorder);
      }
      last = {
        resourceKind: req.resourceKind,
        resourceNamespace: req.resourceNamespace,
        operation: req.operation,
        dryRun: req.dryRun,
        recorder,
      };
      return recorder;
    },
  };
}
