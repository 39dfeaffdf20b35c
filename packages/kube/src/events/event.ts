/**
 * What an event recorder is told, and the `events.k8s.io/v1` `Event` it writes for it, as client-go's
 * `tools/events` recorder (upstream Kyverno's) writes it: `regarding`, `related`, `note`, `action`,
 * `eventTime`, `reportingController`, `reportingInstance`, and `series` once an occurrence repeats; no
 * deprecated (legacy) fields, which the API rejects on create. kube-apiserver serves the same object
 * through core/v1 (`involvedObject`, `message`, `series`), where `kubectl describe` and `kubectl get
 * events` read it and show the series count.
 */
import type { JsonObject, KubeObject } from "@kyverno-ts/api";

/** The object an Event is about (`regarding` → `involvedObject`) or refers to (`related`). */
export interface EventObjectRef {
  apiVersion: string;
  kind: string;
  name: string;
  /** Empty or omitted for cluster-scoped objects (their Events go to the `default` namespace). */
  namespace?: string;
  /** Without it `kubectl describe`, which selects by uid, does not list the Event. */
  uid?: string;
}

/** `Normal` or `Warning`, as Kubernetes defines them. */
export type EventType = "Normal" | "Warning";

/** One occurrence, as a controller reports it. */
export interface EventRecord {
  /** `reportingComponent` / `source.component`, e.g. `kyverno-admission`. */
  reportingController: string;
  regarding: EventObjectRef;
  related?: EventObjectRef;
  type: EventType;
  /** Machine-readable, UpperCamelCase (`PolicyViolation`). */
  reason: string;
  /** What was done (`Resource Passed`, `Resource Blocked`). */
  action: string;
  /** The human-readable message (`message`); cut to 1024 characters as client-go does. */
  note: string;
}

/** Longest `message` written (client-go's `maxNoteLength`). */
export const MAX_NOTE_LENGTH = 1024;

/** An aggregated series of identical occurrences: the state behind one Event object. */
export interface EventSeries {
  record: EventRecord;
  /** The Event object's name and namespace (fixed when the series starts). */
  name: string;
  namespace: string;
  firstMs: number;
  lastMs: number;
  count: number;
}

/** RFC 3339 with microseconds (`metav1.MicroTime`). */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, "000Z");
}

function reference(ref: EventObjectRef): Record<string, string> {
  return {
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    name: ref.name,
    ...(ref.namespace ? { namespace: ref.namespace } : {}),
    ...(ref.uid ? { uid: ref.uid } : {}),
  };
}

/**
 * The name client-go gives an Event: `<regarding name>.<hex of the time in nanoseconds>`; `sequence`
 * fills the sub-millisecond digits so two Events of one object in one millisecond do not collide.
 */
export function eventName(regardingName: string, ms: number, sequence: number): string {
  const nanos = BigInt(Math.floor(ms)) * 1_000_000n + BigInt(sequence % 1_000_000);
  return `${regardingName.slice(0, 236)}.${nanos.toString(16)}`;
}

/** The API Events are written to (upstream Kyverno's recorder writes there too). */
export const EVENT_API_VERSION = "events.k8s.io/v1";

/** The `events.k8s.io/v1` Event object of a series, as created. */
export function eventObject(series: EventSeries, reportingInstance: string): KubeObject {
  const { record } = series;
  return {
    apiVersion: EVENT_API_VERSION,
    kind: "Event",
    metadata: { name: series.name, namespace: series.namespace },
    regarding: reference(record.regarding),
    ...(record.related ? { related: reference(record.related) } : {}),
    reason: record.reason,
    note: record.note.slice(0, MAX_NOTE_LENGTH),
    type: record.type,
    action: record.action,
    eventTime: microTime(series.firstMs),
    reportingController: record.reportingController,
    reportingInstance,
    ...seriesFields(series),
  };
}

function seriesFields(series: EventSeries): { series?: { count: number; lastObservedTime: string } } {
  return series.count > 1
    ? { series: { count: series.count, lastObservedTime: microTime(series.lastMs) } }
    : {};
}

/** The merge patch that brings an existing Event to the series' current count (client-go patches `series`). */
export function seriesPatch(series: EventSeries): JsonObject {
  return seriesFields(series);
}

/**
 * The keys of an occurrence's objects (`regarding`, `related`: empty without one), computed once for
 * the series, similar and spam-filter keys built from them.
 *
 * Every key is made with `Array.prototype.join`, which builds one flat string: the recorder keeps
 * thousands of them in its maps (4,096 series, similar records and spam buckets each), and a key made
 * by concatenation stays a tree of a node per part (a background scan's recorder held 325,000 such
 * nodes, 10 MiB, and every full collection marked them).
 */
export interface RecordKeys {
  regarding: string;
  related: string;
}

/** The object keys of an occurrence. */
export function recordKeys(record: EventRecord): RecordKeys {
  return { regarding: refKey(record.regarding), related: record.related ? refKey(record.related) : "" };
}

/**
 * The key under which similar occurrences are counted (client-go's EventAggregator): everything but
 * the note, the related object and the time.
 */
export function similarKey(record: EventRecord, keys: RecordKeys = recordKeys(record)): string {
  return [record.reportingController, record.type, record.reason, record.action, keys.regarding].join(
    "\u0000",
  );
}

/**
 * The key under which occurrences aggregate: everything but the time (the similar key, then the
 * related object and the note).
 */
export function seriesKey(
  record: EventRecord,
  keys: RecordKeys = recordKeys(record),
  similar: string = similarKey(record, keys),
): string {
  return [similar, keys.related, record.note].join("\u0000");
}

/** Prefix of the note of a series of similar occurrences (client-go's EventAggregator message). */
export const COMBINED_NOTE_PREFIX = "(combined from similar events): ";

/**
 * The occurrence standing for similar ones past the `similarEvents` limit: the first of them, its
 * note prefixed, without a related object (client-go's aggregate event carries none either).
 */
export function combinedRecord(record: EventRecord): EventRecord {
  const { related: _related, ...rest } = record;
  return { ...rest, note: `${COMBINED_NOTE_PREFIX}${record.note}` };
}

/** The series key of the combined occurrence of similar ones (constant whatever their notes). */
export function combinedSeriesKey(record: EventRecord, similar: string = similarKey(record)): string {
  return [similar, "\u0002combined"].join("\u0000");
}

/** The spam filter's key: the source and the pair of objects (client-go: source + involved object). */
export function sourceObjectKey(record: EventRecord, keys: RecordKeys = recordKeys(record)): string {
  return [record.reportingController, keys.regarding, keys.related].join("\u0000");
}

function refKey(ref: EventObjectRef): string {
  return [ref.apiVersion, ref.kind, ref.namespace ?? "", ref.name, ref.uid ?? ""].join("\u0001");
}
