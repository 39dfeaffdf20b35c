/**
 * The `kyverno-metrics` ConfigMap, read as upstream reads it: `namespaces` (JSON
 * `{"include": [...], "exclude": [...]}`: the resource namespaces metrics are recorded for),
 * `bucketBoundaries` (comma-separated seconds for every histogram), `metricsExposure` (JSON, per
 * metric: `enabled`, `disabledLabelDimensions`, `bucketBoundaries`) and upstream's inert
 * `metricsRefreshInterval`; plus kyverno-ts's `maxSeriesPerMetric` (the hard bound of every family).
 * Upstream's chart writes these keys from `metricsConfig.*`; the admission and reports controllers
 * read them at start (as upstream, a change needs a restart).
 */
import type { MetricFamilySpec } from "./catalog.js";
import type { Exposure } from "./family.js";

/** Upstream's default histogram buckets (seconds). */
export const DEFAULT_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 20, 25, 30,
];

/** Default bound of series per family. */
export const DEFAULT_MAX_SERIES = 10_000;

/** One metric's entry of `metricsExposure`. */
export interface MetricExposureConfig {
  enabled?: boolean;
  disabledLabelDimensions?: readonly string[];
  bucketBoundaries?: readonly number[];
}

/** The parsed ConfigMap. */
export interface MetricsConfig {
  namespaces: { include: readonly string[]; exclude: readonly string[] };
  bucketBoundaries: readonly number[];
  /** By metric name as written (with or without `_total`). */
  metricsExposure: Readonly<Record<string, MetricExposureConfig>>;
  maxSeriesPerMetric: number;
}

/** The configuration without a ConfigMap: every namespace, every metric and label, upstream's buckets. */
export function defaultMetricsConfig(): MetricsConfig {
  return {
    namespaces: { include: [], exclude: [] },
    bucketBoundaries: DEFAULT_BUCKETS,
    metricsExposure: {},
    maxSeriesPerMetric: DEFAULT_MAX_SERIES,
  };
}

function parseBuckets(text: string, where: string, problems: string[]): number[] | undefined {
  const values = text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
    .map(Number);
  if (values.length === 0 || values.some((v) => !Number.isFinite(v))) {
    problems.push(`${where}: expected comma-separated numbers, got ${JSON.stringify(text)}`);
    return undefined;
  }
  for (let i = 1; i < values.length; i++)
    if ((values[i] as number) <= (values[i - 1] as number)) {
      problems.push(`${where}: bucket boundaries must increase, got ${JSON.stringify(text)}`);
      return undefined;
    }
  return values;
}

function parseJson(text: string, where: string, problems: string[]): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    problems.push(`${where}: not JSON (${(error as Error).message})`);
    return undefined;
  }
}

function stringList(value: unknown, where: string, problems: string[]): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value;
  problems.push(`${where}: expected a list of strings`);
  return [];
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

function parseExposure(value: unknown, where: string, problems: string[]): MetricExposureConfig {
  if (!isObject(value)) {
    problems.push(`${where}: expected an object`);
    return {};
  }
  const out: MetricExposureConfig = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === "enabled") {
      if (typeof v === "boolean") out.enabled = v;
      else problems.push(`${where}.enabled: expected true or false`);
    } else if (key === "disabledLabelDimensions") {
      out.disabledLabelDimensions = stringList(v, `${where}.disabledLabelDimensions`, problems);
    } else if (key === "bucketBoundaries") {
      const text = Array.isArray(v) ? v.join(",") : String(v);
      const buckets = parseBuckets(text, `${where}.bucketBoundaries`, problems);
      if (buckets) out.bucketBoundaries = buckets;
    } else
      problems.push(`${where}.${key}: unknown field (enabled, disabledLabelDimensions, bucketBoundaries)`);
  }
  return out;
}

/**
 * Parses the ConfigMap's `data` (`source` names it in problems). Problems are returned, not thrown:
 * the affected setting keeps its default and the controller logs them.
 */
export function parseMetricsConfig(
  data: Readonly<Record<string, string>>,
  source: string,
): { config: MetricsConfig; problems: string[] } {
  const problems: string[] = [];
  const config = defaultMetricsConfig();
  const at = (key: string) => `${source}: data.${key}`;
  if (data.namespaces !== undefined && data.namespaces.trim() !== "") {
    const parsed = parseJson(data.namespaces, at("namespaces"), problems);
    if (isObject(parsed))
      config.namespaces = {
        include: stringList(parsed.include, `${at("namespaces")}.include`, problems),
        exclude: stringList(parsed.exclude, `${at("namespaces")}.exclude`, problems),
      };
    else if (parsed !== undefined)
      problems.push(`${at("namespaces")}: expected {"include": [...], "exclude": [...]}`);
  }
  if (data.bucketBoundaries !== undefined && data.bucketBoundaries.trim() !== "") {
    const buckets = parseBuckets(data.bucketBoundaries, at("bucketBoundaries"), problems);
    if (buckets) config.bucketBoundaries = buckets;
  }
  if (data.metricsExposure !== undefined && data.metricsExposure.trim() !== "") {
    const parsed = parseJson(data.metricsExposure, at("metricsExposure"), problems);
    if (isObject(parsed))
      config.metricsExposure = Object.fromEntries(
        Object.entries(parsed).map(([name, v]) => [
          name,
          parseExposure(v, `${at("metricsExposure")}.${name}`, problems),
        ]),
      );
    else if (parsed !== undefined)
      problems.push(`${at("metricsExposure")}: expected an object by metric name`);
  }
  if (data.maxSeriesPerMetric !== undefined && data.maxSeriesPerMetric.trim() !== "") {
    const n = Number(data.maxSeriesPerMetric);
    if (Number.isInteger(n) && n > 0) config.maxSeriesPerMetric = n;
    else
      problems.push(
        `${at("maxSeriesPerMetric")}: expected a positive integer, got ${JSON.stringify(data.maxSeriesPerMetric)}`,
      );
  }
  return { config, problems };
}

/** The `metricsExposure` entry of a family: by its name, or its name without `_total` (upstream's instrument name). */
function entryOf(config: MetricsConfig, name: string): MetricExposureConfig | undefined {
  return config.metricsExposure[name] ?? config.metricsExposure[name.replace(/_total$/, "")];
}

/** How a family is exposed under `config`. */
export function exposureOf(config: MetricsConfig, spec: MetricFamilySpec): Exposure {
  const entry = entryOf(config, spec.name);
  const disabled = new Set(entry?.disabledLabelDimensions ?? []);
  return {
    enabled: entry?.enabled !== false,
    kept: spec.labels.flatMap((l, i) => (disabled.has(l) ? [] : [i])),
    buckets: entry?.bucketBoundaries ?? config.bucketBoundaries,
  };
}

/**
 * Problems of a configuration: `metricsExposure` entries naming no metric (neither one of `families`
 * nor one of `otherNames`, upstream's families not emitted yet), and disabled dimensions a family does
 * not have. Upstream ignores both silently; the controllers log them.
 */
export function exposureProblems(
  config: MetricsConfig,
  families: readonly MetricFamilySpec[],
  otherNames: readonly string[],
  source: string,
): string[] {
  const problems: string[] = [];
  const same = (a: string, b: string) => a === b || a.replace(/_total$/, "") === b;
  for (const [name, entry] of Object.entries(config.metricsExposure)) {
    const spec = families.find((f) => same(f.name, name));
    if (spec === undefined) {
      if (!otherNames.some((n) => same(n, name)))
        problems.push(`${source}: metricsExposure.${name}: no such metric (ignored)`);
      continue;
    }
    // Upstream's chart defaults name labels a family lacks (`resource_namespace` of rule info): only
    // a label no family has is reported, as a likely typo.
    for (const l of entry.disabledLabelDimensions ?? [])
      if (!spec.labels.includes(l) && !families.some((f) => f.labels.includes(l)))
        problems.push(
          `${source}: metricsExposure.${name}.disabledLabelDimensions: ${spec.name} has no label ${l} (ignored)`,
        );
  }
  return problems;
}

/**
 * Whether metrics are recorded for a resource namespace: not in `exclude`, and in `include` when that
 * is not empty. Cluster-scoped resources (no namespace) are always recorded.
 */
export function namespaceFilter(config: MetricsConfig): (namespace: string) => boolean {
  const include = new Set(config.namespaces.include);
  const exclude = new Set(config.namespaces.exclude);
  if (include.size === 0 && exclude.size === 0) return () => true;
  return (ns) => ns === "" || (!exclude.has(ns) && (include.size === 0 || include.has(ns)));
}
