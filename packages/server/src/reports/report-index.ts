/**
 * What the controller knows of the reports it owns, without holding them: for each, its
 * resourceVersion, content digest, scope and the policies it mentions. Loaded by listing the reports
 * (paginated, at the start of each full scan) and kept current by the controller's own writes, which
 * win over a list that was in flight while they happened.
 */
import type { AnyPolicyReport, ObjectReference } from "@kyverno-ts/api";
import type { ApiResult, KubeClient } from "@kyverno-ts/kube";
import { REPORT_LABELS, SCAN_INPUTS_ANNOTATION } from "./report-builder.js";
import { reportDigest } from "./report-digest.js";

/** One known report. */
export interface ReportEntry {
  kind: "PolicyReport" | "ClusterPolicyReport";
  /** `""` for ClusterPolicyReports. */
  namespace: string;
  name: string;
  resourceVersion: string;
  digest: string;
  scope: ObjectReference | undefined;
  /** Policy names of its results (`name` or `namespace/name`). */
  policies: readonly string[];
  /** Its scan's inputs bound to its content (`SCAN_INPUTS_ANNOTATION`), when known. */
  inputs: string | undefined;
}

/** The index; see `createReportIndex`. */
export interface ReportIndex {
  /** Lists every report labelled as Kyverno's and replaces the index; resolves with the count (calls coalesce). */
  load(signal?: AbortSignal): Promise<ApiResult<number>>;
  /** True once a `load` succeeded. */
  readonly loaded: boolean;
  get(namespace: string, name: string): ReportEntry | undefined;
  /**
   * Records a report as written (or read) by this controller; `digest` is its content digest when
   * known (what the writer sent), so the response need not be digested again.
   */
  set(report: AnyPolicyReport, digest?: string): ReportEntry;
  delete(namespace: string, name: string): void;
  /** Records the scan inputs a known report answers (its content did not need a write). */
  setInputs(namespace: string, name: string, inputs: string): void;
  /** Forgets the scan inputs of every entry: the next scan of each resource evaluates it. */
  forgetInputs(): void;
  entries(): IterableIterator<ReportEntry>;
  readonly size: number;
}

const SELECTOR = Object.entries(REPORT_LABELS)
  .map(([k, v]) => `${k}=${v}`)
  .join(",");

const key = (namespace: string, name: string): string => `${namespace}/${name}`;

/**
 * Shares equal strings and equal policy lists between entries: tens of thousands of reports name the
 * same few policies (and kinds, namespaces), and parsed responses would otherwise hold a copy each.
 * Grows with the distinct values only (policies, namespaces, kinds, and their combinations).
 */
export interface Interner {
  string(s: string): string;
  list(values: readonly string[]): readonly string[];
}

/** Creates an interner (one per index). */
export function createInterner(): Interner {
  const strings = new Map<string, string>();
  const lists = new Map<string, readonly string[]>();
  const string = (s: string): string => {
    const known = strings.get(s);
    if (known !== undefined) return known;
    strings.set(s, s);
    return s;
  };
  return {
    string,
    list(values) {
      const k = values.join("\u0000");
      const known = lists.get(k);
      if (known !== undefined) return known;
      const list = Object.freeze(values.map(string));
      lists.set(k, list);
      return list;
    },
  };
}

/**
 * Makes the index entry of a report. `digest` is the content digest when the caller computed it
 * already (the writer does, for what it sent); `interner` shares repeated strings between entries.
 */
export function entryOf(report: AnyPolicyReport, digest?: string, interner?: Interner): ReportEntry {
  const intern = interner ?? { string: (s: string) => s, list: (v: readonly string[]) => v };
  const policies = intern.list([...new Set((report.results ?? []).map((r) => r.policy))]);
  const rv = report.metadata.resourceVersion;
  const name = report.metadata.name;
  const s = report.scope;
  const scope: ObjectReference | undefined =
    s === undefined
      ? undefined
      : {
          ...(s.apiVersion === undefined ? {} : { apiVersion: intern.string(s.apiVersion) }),
          ...(s.kind === undefined ? {} : { kind: intern.string(s.kind) }),
          ...(s.namespace === undefined ? {} : { namespace: intern.string(s.namespace) }),
          ...(s.name === undefined ? {} : { name: s.name }),
          // The report is named after the uid: share the string.
          ...(s.uid === undefined ? {} : { uid: s.uid === name ? name : s.uid }),
        };
  const namespace = report.metadata.namespace;
  const inputs = report.metadata.annotations?.[SCAN_INPUTS_ANNOTATION];
  return {
    // A literal, not the parsed response's copy of the string.
    kind: report.kind === "PolicyReport" ? "PolicyReport" : "ClusterPolicyReport",
    namespace: typeof namespace === "string" ? intern.string(namespace) : "",
    name,
    resourceVersion: typeof rv === "string" ? rv : "",
    digest: digest ?? reportDigest(report),
    scope,
    policies,
    inputs: typeof inputs === "string" ? inputs : undefined,
  };
}

/** Creates an empty index over `client`; `pageSize` bounds each list request (default 500). */
export function createReportIndex(options: { client: KubeClient; pageSize?: number }): ReportIndex {
  const { client } = options;
  const pageSize = options.pageSize ?? 500;
  const interner = createInterner();
  let entries = new Map<string, ReportEntry>();
  let loaded = false;
  /** Keys written while a load is in flight: the load's view of them is older. */
  let touched: Set<string> | undefined;

  const listKind = async (
    kind: ReportEntry["kind"],
    into: Map<string, ReportEntry>,
    signal?: AbortSignal,
  ): Promise<ApiResult<number>> => {
    let token: string | undefined;
    let count = 0;
    do {
      const page = await client.list<AnyPolicyReport>({
        apiVersion: "wgpolicyk8s.io/v1alpha2",
        kind,
        labelSelector: SELECTOR,
        limit: pageSize,
        ...(token === undefined ? {} : { continue: token }),
        ...(signal === undefined ? {} : { signal }),
      });
      if (!page.ok) return page;
      for (const report of page.value.items) {
        const entry = entryOf(report, undefined, interner);
        into.set(key(entry.namespace, entry.name), entry);
        count++;
      }
      token = page.value.metadata.continue || undefined;
    } while (token !== undefined);
    return { ok: true, status: 200, value: count };
  };

  const touch = (k: string): void => {
    touched?.add(k);
  };

  let loading: Promise<ApiResult<number>> | undefined;

  const load = async (signal?: AbortSignal): Promise<ApiResult<number>> => {
    const fresh = new Map<string, ReportEntry>();
    const written = new Set<string>();
    touched = written;
    try {
      for (const kind of ["PolicyReport", "ClusterPolicyReport"] as const) {
        const listed = await listKind(kind, fresh, signal);
        if (!listed.ok) return listed;
      }
    } finally {
      if (touched === written) touched = undefined;
    }
    for (const k of written) {
      const current = entries.get(k);
      if (current === undefined) fresh.delete(k);
      else fresh.set(k, current);
    }
    entries = fresh;
    loaded = true;
    return { ok: true, status: 200, value: fresh.size };
  };

  return {
    load(signal) {
      // One list at a time: a second caller shares the one in flight.
      loading ??= load(signal).finally(() => {
        loading = undefined;
      });
      return loading;
    },
    get loaded() {
      return loaded;
    },
    get: (namespace, name) => entries.get(key(namespace, name)),
    set(report, digest) {
      const entry = entryOf(report, digest, interner);
      const k = key(entry.namespace, entry.name);
      entries.set(k, entry);
      touch(k);
      return entry;
    },
    delete(namespace, name) {
      const k = key(namespace, name);
      entries.delete(k);
      touch(k);
    },
    setInputs(namespace, name, inputs) {
      const k = key(namespace, name);
      const entry = entries.get(k);
      if (entry === undefined) return;
      entry.inputs = inputs;
      touch(k);
    },
    forgetInputs() {
      for (const entry of entries.values()) entry.inputs = undefined;
    },
    entries: () => entries.values(),
    get size() {
      return entries.size;
    },
  };
}
