/**
 * `ResultGauge`: a result gauge whose series live here, not in prom-client. prom-client keeps per
 * series a hashed key string and a label object (and allocates both on every `set`), which at
 * 100,000 results was about 100 MiB; the label objects are built here only while `/metrics` is
 * scraped. Each report's contribution is remembered, so an update or delete removes the series no
 * result carries any more.
 *
 * With the `report` label (detailed mode, and custom labels that include it) no two reports share a
 * series — a report is identified by its namespace and name, and only cluster reports, whose names
 * are unique, lack the namespace — so each report keeps its own series (see `OwnSeries`): ~40 bytes
 * per result instead of the ~220 of a joined key string, its map entry and a series object (210 MiB
 * at 1,000,000 results). Without it (simple mode, custom labels) reports
 * share series, which are kept once by their joined label values and counted.
 */
import { Gauge, type MetricObjectWithValues, type MetricValue, type Registry } from "prom-client";

/** One shared series: its label values joined by NUL (in the gauge's label order) and its count. */
interface Series {
  readonly key: string;
  count: number;
}

/**
 * A report's series: its distinct label values, and per series one code per label (gauge label
 * order) indexing them — a byte per label while a report has fewer than 256 distinct values — and
 * the counts (none: each 1). Node's pointers are 8 bytes, so an array of the values themselves took
 * 80 bytes per result in detailed mode.
 */
interface OwnSeries {
  readonly strings: readonly string[];
  readonly codes: Uint8Array | Uint16Array | Uint32Array;
  readonly counts: readonly number[] | undefined;
}

/** A report's contribution to shared series: which, and how many results in each. */
interface SharedSeries {
  readonly series: readonly Series[];
  readonly counts: readonly number[];
}

const SEP = "\u0000";

/** Labels whose value is one string object for all of a report's results (not interned). */
const PER_REPORT_LABELS: ReadonlySet<string> = new Set(["namespace", "report", "name"]);
/** Distinct label values kept for interning. */
const MAX_INTERNED = 50_000;

/** Options of {@link ResultGauge}. */
export interface ResultGaugeOptions {
  name: string;
  help: string;
  labelNames: readonly string[];
  registry: Registry;
}

/** The gauge; `setReport` replaces a report's series, `removeReport` drops them. */
export class ResultGauge extends Gauge<string> {
  readonly #labelNames: readonly string[];
  /** Whether every series belongs to one report (the `report` label is present). */
  readonly #perReport: boolean;
  readonly #own = new Map<string, OwnSeries>();
  readonly #shared = new Map<string, SharedSeries>();
  readonly #series = new Map<string, Series>();
  /** Per label position: whether its values are interned (not the report's own namespace, name, resource). */
  readonly #internAt: readonly boolean[];
  /**
   * One copy of each policy, rule, status, … value: every parsed report holds its own copies, which
   * the series would otherwise keep (~70 bytes per result). Cleared when full, so it stays bounded.
   */
  readonly #interned = new Map<string, string>();

  constructor(options: ResultGaugeOptions) {
    super({
      name: options.name,
      help: options.help,
      labelNames: options.labelNames,
      registers: [options.registry],
    });
    this.#labelNames = options.labelNames;
    this.#perReport = options.labelNames.includes("report");
    this.#internAt = options.labelNames.map((l) => !PER_REPORT_LABELS.has(l));
  }

  #intern(value: string): string {
    const known = this.#interned.get(value);
    if (known !== undefined) return known;
    if (this.#interned.size >= MAX_INTERNED) this.#interned.clear();
    this.#interned.set(value, value);
    return value;
  }

  /**
   * Replaces the series of report `reportId` with `values` (label values in the gauge's label
   * order, one run of `labelNames.length` per series; a series may repeat) — an empty list removes it.
   */
  setReport(reportId: string, values: readonly string[]): void {
    const width = this.#labelNames.length;
    if (this.#perReport) {
      if (values.length === 0) {
        this.#own.delete(reportId);
        return;
      }
      const seen = new Map<string, number>();
      const index = new Map<string, number>();
      const strings: string[] = [];
      const codes: number[] = [];
      const counts: number[] = [];
      for (let at = 0; at < values.length; at += width) {
        const key = values.slice(at, at + width).join(SEP);
        const series = seen.get(key);
        if (series !== undefined) {
          counts[series] = (counts[series] ?? 0) + 1;
          continue;
        }
        seen.set(key, counts.length);
        counts.push(1);
        for (let i = 0; i < width; i++) {
          const value = values[at + i] ?? "";
          let code = index.get(value);
          if (code === undefined) {
            code = strings.length;
            index.set(value, code);
            strings.push(this.#internAt[i] ? this.#intern(value) : value);
          }
          codes.push(code);
        }
      }
      const Codes =
        strings.length <= 0xff ? Uint8Array : strings.length <= 0xffff ? Uint16Array : Uint32Array;
      this.#own.set(reportId, {
        // An exact-size copy: arrays grown by push keep spare capacity.
        strings: strings.slice(),
        codes: Codes.from(codes),
        counts: counts.every((n) => n === 1) ? undefined : counts.slice(),
      });
      return;
    }
    const counted = new Map<Series, number>();
    for (let at = 0; at < values.length; at += width) {
      const series = this.#seriesOf(values.slice(at, at + width).join(SEP));
      counted.set(series, (counted.get(series) ?? 0) + 1);
    }
    // Add before removing the old contribution, so a series kept by the update is never dropped.
    for (const [series, n] of counted) series.count += n;
    this.removeReport(reportId);
    if (counted.size > 0)
      this.#shared.set(reportId, { series: [...counted.keys()], counts: [...counted.values()] });
  }

  /** Removes the series of a report (nothing when it has none). */
  removeReport(reportId: string): void {
    if (this.#own.delete(reportId)) return;
    const previous = this.#shared.get(reportId);
    if (!previous) return;
    for (let i = 0; i < previous.series.length; i++) {
      const series = previous.series[i];
      if (!series) continue;
      series.count -= previous.counts[i] ?? 0;
      if (series.count <= 0) this.#series.delete(series.key);
    }
    this.#shared.delete(reportId);
  }

  #seriesOf(key: string): Series {
    let entry = this.#series.get(key);
    if (!entry) {
      entry = { key, count: 0 };
      this.#series.set(key, entry);
    }
    return entry;
  }

  override async get(): Promise<MetricObjectWithValues<MetricValue<string>>> {
    const names = this.#labelNames;
    const out: MetricValue<string>[] = [];
    const labelsOf = (part: (i: number) => string | undefined) => {
      const labels: Record<string, string> = {};
      for (let i = 0; i < names.length; i++) labels[names[i] as string] = part(i) ?? "";
      return labels;
    };
    for (const { strings, codes, counts } of this.#own.values()) {
      for (let s = 0, at = 0; at < codes.length; s++, at += names.length) {
        out.push({ value: counts?.[s] ?? 1, labels: labelsOf((i) => strings[codes[at + i] ?? 0]) });
      }
    }
    for (const s of this.#series.values()) {
      const parts = s.key.split(SEP);
      out.push({ value: s.count, labels: labelsOf((i) => parts[i]) });
    }
    // The base gauge holds no series (nothing is ever set on it): it supplies name, help and type.
    return { ...(await super.get()), values: out };
  }
}
