/**
 * Metric families rendered in the Prometheus text format, cheap enough for the admission hot path and
 * bounded whatever the requests' labels. A caller finds a series by its own unique spelling of the
 * label values (`key`); the values themselves are only built the first time a key is seen. With label
 * dimensions disabled (`metricsExposure`), keys that differ only in a dropped label share one series.
 * A family never holds more than `maxSeries` series: past it, new label sets are not recorded and are
 * counted through `onDropped` (about once per refused label set). Rendering yields the exposition series by series, so a scrape is
 * streamed instead of built as one string.
 */
import { fnv1a32 } from "@kyverno-ts/api";
import type { MetricFamilySpec } from "./catalog.js";

/** What a family exposes, and how (from the `kyverno-metrics` ConfigMap; see `exposureOf`). */
export interface Exposure {
  /** False: nothing is recorded or rendered. */
  enabled: boolean;
  /** Indexes (into the spec's labels) of the labels kept, in order. */
  kept: readonly number[];
  /** Histogram bucket upper bounds, ascending. */
  buckets: readonly number[];
}

/** Bounds of a family. */
export interface FamilyLimits {
  /** Most series kept. */
  maxSeries: number;
  /** Told the family's name each time an observation is refused because the family is full. */
  onDropped?: (name: string) => void;
}

/** Anything that renders exposition lines. */
export interface RenderableFamily {
  readonly spec: MetricFamilySpec;
  /** The family's text, one string per series (HELP and TYPE first); nothing when disabled. */
  lines(): Generator<string>;
}

/** A family whose series the caller records into. */
export interface RecordedFamily<S> extends RenderableFamily {
  /**
   * The series of `key` (the caller's unique spelling of the label values), created if needed with
   * `values()` (one value per spec label); undefined when the family is disabled or full.
   */
  series(key: string, values: () => readonly string[]): S | undefined;
  /** Number of series. */
  readonly size: number;
}

/** A counter series. */
export interface CounterSeries {
  inc(by?: number): void;
}

/** A histogram series. */
export interface HistogramSeries {
  observe(value: number): void;
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** A number as the text format writes it. */
export function formatValue(n: number): string {
  if (n === Number.POSITIVE_INFINITY) return "+Inf";
  if (n === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(n);
}

/** The `# HELP` and `# TYPE` lines of a family. */
export function header(spec: MetricFamilySpec): string {
  return `# HELP ${spec.name} ${spec.help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")}\n# TYPE ${spec.name} ${spec.type}\n`;
}

/**
 * The rendered label pairs of the kept labels (`a="x",b="y"`), empty without labels. Joined into one
 * flat string: each series keeps its text, and text appended piece by piece stays a chain of a node
 * per piece (a background scan's controller held about 170,000 such nodes for its series).
 */
export function labelText(spec: MetricFamilySpec, exposure: Exposure, values: readonly string[]): string {
  const pairs: string[] = [];
  for (const i of exposure.kept) pairs.push(`${spec.labels[i]}="${escapeLabel(values[i] ?? "")}"`);
  return pairs.join(",");
}

/** `name{labels}` or `name` when there are none. */
export function sampleName(name: string, labels: string): string {
  return labels === "" ? name : `${name}{${labels}}`;
}

/**
 * The series bookkeeping shared by counters and histograms: series by rendered labels (the identity,
 * bounded by `maxSeries`) and a cache from caller keys to series. With dropped dimensions there is no
 * such cache (keys would outnumber series; the label text is built on each lookup and callers on the
 * hot path keep the series they looked up); without, it holds one key per series. Keys
 * refused because the family is full are remembered by hash (bounded as well), so each is counted
 * about once and a refused request builds no label text again.
 */
function createStore<S>(
  spec: MetricFamilySpec,
  exposure: Exposure,
  limits: FamilyLimits,
  create: (labels: string) => S,
) {
  const byLabels = new Map<string, S>();
  const byKey = new Map<string, S>();
  const refused = new Set<number>();
  const cacheLimit = limits.maxSeries * 2;
  // Without dropped dimensions a key names exactly one series, and byKey holds every series' key.
  const reduced = exposure.kept.length < spec.labels.length;
  const refuse = (hash: number): undefined => {
    if (refused.size >= cacheLimit) refused.clear();
    refused.add(hash);
    limits.onDropped?.(spec.name);
    return undefined;
  };
  return {
    byLabels,
    lookup(key: string, values: () => readonly string[]): S | undefined {
      if (!exposure.enabled) return undefined;
      const cached = byKey.get(key);
      if (cached !== undefined) return cached;
      const full = byLabels.size >= limits.maxSeries;
      let hash = 0;
      if (full) {
        hash = fnv1a32(key);
        if (refused.has(hash)) return undefined;
        if (!reduced) return refuse(hash);
      }
      const labels = labelText(spec, exposure, values());
      let s = byLabels.get(labels);
      if (s === undefined) {
        if (full) return refuse(hash);
        s = create(labels);
        byLabels.set(labels, s);
      }
      // With dropped dimensions, keys outnumber series: callers keep what they look up (recorders).
      if (reduced) return s;
      if (byKey.size >= cacheLimit) byKey.clear();
      byKey.set(key, s);
      return s;
    },
  };
}

/** A counter family. */
export function createCounterFamily(
  spec: MetricFamilySpec,
  exposure: Exposure,
  limits: FamilyLimits,
): RecordedFamily<CounterSeries> {
  interface Counter extends CounterSeries {
    labels: string;
    value: number;
  }
  const store = createStore<Counter>(spec, exposure, limits, (labels) => {
    const c: Counter = {
      labels,
      value: 0,
      inc(by = 1) {
        c.value += by;
      },
    };
    return c;
  });
  return {
    spec,
    series: store.lookup,
    get size() {
      return store.byLabels.size;
    },
    *lines() {
      if (!exposure.enabled) return;
      yield header(spec);
      for (const c of store.byLabels.values()) yield `${sampleName(spec.name, c.labels)} ${c.value}\n`;
    },
  };
}

/** A histogram family (cumulative `_bucket` series with `le` first, then `_sum` and `_count`). */
export function createHistogramFamily(
  spec: MetricFamilySpec,
  exposure: Exposure,
  limits: FamilyLimits,
): RecordedFamily<HistogramSeries> {
  interface Histogram extends HistogramSeries {
    labels: string;
    /** Observations per bucket (not cumulative); the last slot is above the highest bound. */
    counts: Float64Array;
    sum: number;
    count: number;
  }
  const upper = Float64Array.from(exposure.buckets);
  const bounds = exposure.buckets.map(formatValue);
  const store = createStore<Histogram>(spec, exposure, limits, (labels) => {
    const h: Histogram = {
      labels,
      counts: new Float64Array(upper.length + 1),
      sum: 0,
      count: 0,
      observe(value) {
        let i = 0;
        while (i < upper.length && value > (upper[i] as number)) i++;
        h.counts[i] = (h.counts[i] as number) + 1;
        h.sum += value;
        h.count++;
      },
    };
    return h;
  });
  const bucket = `${spec.name}_bucket{le="`;
  return {
    spec,
    series: store.lookup,
    get size() {
      return store.byLabels.size;
    },
    *lines() {
      if (!exposure.enabled) return;
      yield header(spec);
      for (const h of store.byLabels.values()) {
        const close = h.labels === "" ? '"}' : `",${h.labels}}`;
        let text = "";
        let cumulative = 0;
        for (let i = 0; i < bounds.length; i++) {
          cumulative += h.counts[i] as number;
          text += `${bucket}${bounds[i]}${close} ${cumulative}\n`;
        }
        text += `${bucket}+Inf${close} ${h.count}\n`;
        text += `${sampleName(`${spec.name}_sum`, h.labels)} ${formatValue(h.sum)}\n`;
        text += `${sampleName(`${spec.name}_count`, h.labels)} ${h.count}\n`;
        yield text;
      }
    },
  };
}

/** One sample of a collected family: a value per spec label, and the sample's value. */
export interface CollectedSample {
  values: readonly string[];
  value: number;
}

/**
 * A family sampled at scrape time (gauges of current state, process figures): `collect` returns the
 * samples. Samples that become identical once dimensions are dropped keep the last value.
 */
export function createCollectedFamily(
  spec: MetricFamilySpec,
  exposure: Exposure,
  collect: () => Iterable<CollectedSample>,
): RenderableFamily {
  return {
    spec,
    *lines() {
      if (!exposure.enabled) return;
      const samples = new Map<string, number>();
      for (const s of collect()) samples.set(labelText(spec, exposure, s.values), s.value);
      yield header(spec);
      for (const [labels, value] of samples) yield `${sampleName(spec.name, labels)} ${formatValue(value)}\n`;
    },
  };
}
