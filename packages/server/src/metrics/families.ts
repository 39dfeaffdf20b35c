/**
 * Metric families for the admission hot path, rendered in the Prometheus text format. prom-client
 * validates and hashes the label set on every observation (several microseconds, many times per
 * request); these families look a series up by a caller-built key and only build the label values
 * when a series is first seen. A histogram family can also expose its counts as a counter family
 * with the same labels (`kyverno_policy_results_total` beside `..._execution_duration_seconds`).
 */

/** One series of a histogram family; keep it to record without looking the labels up again. */
export interface HistogramSeries {
  observe(value: number): void;
}

/** A histogram family; see `createHistogramFamily`. */
export interface HistogramFamily {
  /**
   * Records `value` in the series `key` (the caller's unique spelling of the label values);
   * `values` is only called the first time a key is seen.
   */
  observe(key: string, values: () => readonly string[], value: number): void;
  /**
   * The series `key`, created if needed (`values` as in `observe`), for callers that cache series
   * per label set; undefined when the family is full and the series does not exist.
   */
  series(key: string, values: () => readonly string[]): HistogramSeries | undefined;
  /** Renders the family (and its counter twin) in the text exposition format. */
  render(): string;
  /** Number of series. */
  readonly size: number;
}

/** Options of `createHistogramFamily`. */
export interface HistogramFamilyOptions {
  name: string;
  help: string;
  labelNames: readonly string[];
  buckets: readonly number[];
  /** Also render the observation counts as this counter family. */
  counter?: { name: string; help: string };
  /** New series past this many are not recorded (keeps memory bounded under label explosions). */
  maxSeries: number;
}

interface Series extends HistogramSeries {
  labels: string;
  /** Observations per bucket (not cumulative); the last slot is above the highest bound. */
  counts: number[];
  sum: number;
  count: number;
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function escapeHelp(help: string): string {
  return help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

function formatNumber(n: number): string {
  if (n === Number.POSITIVE_INFINITY) return "+Inf";
  if (n === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(n);
}

/** Creates an empty histogram family. */
export function createHistogramFamily(options: HistogramFamilyOptions): HistogramFamily {
  const { name, labelNames, buckets } = options;
  const series = new Map<string, Series>();
  const bounds = buckets.map(formatNumber);
  const upper = Float64Array.from(buckets);
  const lookup = (key: string, values: () => readonly string[]): Series | undefined => {
    let s = series.get(key);
    if (s === undefined) {
      if (series.size >= options.maxSeries) return undefined;
      const v = values();
      const created: Series = {
        labels: labelNames.map((l, i) => `${l}="${escapeLabel(v[i] ?? "")}"`).join(","),
        counts: new Array<number>(buckets.length + 1).fill(0),
        sum: 0,
        count: 0,
        observe(value) {
          let i = 0;
          while (i < upper.length && value > (upper[i] as number)) i++;
          created.counts[i] = (created.counts[i] ?? 0) + 1;
          created.sum += value;
          created.count++;
        },
      };
      s = created;
      series.set(key, s);
    }
    return s;
  };
  return {
    observe(key, values, value) {
      lookup(key, values)?.observe(value);
    },
    series: lookup,
    render() {
      const out: string[] = [];
      if (options.counter) {
        out.push(`# HELP ${options.counter.name} ${escapeHelp(options.counter.help)}`);
        out.push(`# TYPE ${options.counter.name} counter`);
        for (const s of series.values()) out.push(`${options.counter.name}{${s.labels}} ${s.count}`);
      }
      out.push(`# HELP ${name} ${escapeHelp(options.help)}`);
      out.push(`# TYPE ${name} histogram`);
      for (const s of series.values()) {
        let cumulative = 0;
        for (let i = 0; i < bounds.length; i++) {
          cumulative += s.counts[i] ?? 0;
          out.push(`${name}_bucket{le="${bounds[i]}",${s.labels}} ${cumulative}`);
        }
        out.push(`${name}_bucket{le="+Inf",${s.labels}} ${s.count}`);
        out.push(`${name}_sum{${s.labels}} ${formatNumber(s.sum)}`);
        out.push(`${name}_count{${s.labels}} ${s.count}`);
      }
      return `${out.join("\n")}\n`;
    },
    get size() {
      return series.size;
    },
  };
}

/**
 * Labels of `kyverno_policy_results_total` and `kyverno_policy_execution_duration_seconds`, as upstream
 * names them; shared by the admission and the background-scan metrics.
 */
export const POLICY_RESULT_LABELS = [
  "policy_validation_mode",
  "policy_type",
  "policy_background_mode",
  "policy_namespace",
  "policy_name",
  "resource_kind",
  "resource_namespace",
  "resource_request_operation",
  "rule_name",
  "rule_result",
  "rule_type",
  "rule_execution_cause",
  "dry_run",
] as const;
