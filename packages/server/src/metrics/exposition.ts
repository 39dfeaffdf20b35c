/**
 * A controller's `/metrics`: its families rendered one after the other, in chunks of about 64 KiB so
 * the HTTP server streams a large scrape instead of building it as one string (a single string of
 * several hundred MB fails with `Invalid string length`). Also the standard process families every
 * Prometheus client exposes (CPU, resident memory, start time) and Node's heap.
 */
import { memoryUsage } from "node:process";
import { METRIC_FAMILIES, type MetricFamilySpec } from "./catalog.js";
import { createCollectedFamily, type Exposure, type RenderableFamily } from "./family.js";

/** What a metrics endpoint serves. */
export interface MetricsSource {
  /** Content type of the exposition. */
  readonly contentType: string;
  /** The exposition in chunks (each a whole number of lines). */
  chunks(): Generator<string>;
  /** The whole exposition as one string (tests, small scrapes). */
  render(): Promise<string>;
}

/** The Prometheus text format's content type (version 0.0.4). */
export const TEXT_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

const CHUNK_BYTES = 64 * 1024;

/** Serves `families()` (called at each scrape). */
export function createExposition(families: () => readonly RenderableFamily[]): MetricsSource {
  function* chunks(): Generator<string> {
    let buffer = "";
    for (const family of families()) {
      for (const text of family.lines()) {
        buffer += text;
        if (buffer.length >= CHUNK_BYTES) {
          yield buffer;
          buffer = "";
        }
      }
    }
    if (buffer !== "") yield buffer;
  }
  return {
    contentType: TEXT_CONTENT_TYPE,
    chunks,
    async render() {
      let text = "";
      for (const chunk of chunks()) text += chunk;
      return text;
    },
  };
}

/** Where the process families read their figures (injected in tests). */
export interface ProcessProbe {
  cpuSeconds(): number;
  residentBytes(): number;
  heapUsedBytes(): number;
  startTimeSeconds(): number;
}

/** The running process. */
export function systemProcessProbe(): ProcessProbe {
  const start = (Date.now() - performance.now()) / 1000;
  return {
    cpuSeconds() {
      const { user, system } = process.cpuUsage();
      return (user + system) / 1e6;
    },
    residentBytes: () => memoryUsage.rss(),
    heapUsedBytes: () => memoryUsage().heapUsed,
    startTimeSeconds: () => Math.round(start),
  };
}

/** `process_cpu_seconds_total`, `process_resident_memory_bytes`, `nodejs_heap_size_used_bytes`, `process_start_time_seconds`. */
export function processFamilies(
  probe: ProcessProbe,
  exposureFor: (spec: MetricFamilySpec) => Exposure,
): RenderableFamily[] {
  const one = (spec: MetricFamilySpec, value: () => number) =>
    createCollectedFamily(spec, exposureFor(spec), () => [{ values: [], value: value() }]);
  return [
    one(METRIC_FAMILIES.processCpu, probe.cpuSeconds),
    one(METRIC_FAMILIES.processRss, probe.residentBytes),
    one(METRIC_FAMILIES.processHeap, probe.heapUsedBytes),
    one(METRIC_FAMILIES.processStart, probe.startTimeSeconds),
  ];
}
