// Vendors Kyverno's CustomResourceDefinitions for the kinds kyverno-ts serves into two Helm charts,
// unchanged except for their layout: the classic groups into `charts/kyverno-ts/templates/crds/
// <group>/<plural>.yaml` (behind the chart's `crds.install` / `crds.groups.*` switches), and the CEL
// policy kinds (`policies.kyverno.io`) into `charts/kyverno-ts-crds/templates/<group>/<plural>.yaml`
// (behind its `groups.policies.*` switches): with them the kyverno-ts release Secret would pass
// 1 MiB, so they are a release of their own, installed first. Each CRD is written as compact JSON
// (valid YAML), with the chart's labels and annotations values added to its metadata, and every
// sub-schema of at least 1 KiB the chart's CRDs repeat (a version's schema, a namespaced kind's,
// the rule schemas Policy and ClusterPolicy share…) written once in `_crd-shared.tpl` and included
// where it occurs. A Helm release keeps the chart and the rendered manifest in one Secret limited
// to 1 MiB: the indented YAML of the two classic policy CRDs alone is 2.8 MB; written this way the
// kyverno-ts templates take 169 KiB (1.6 MiB before sharing) and its release Secret about 475 KiB,
// kyverno-ts-crds' about 307 KiB. The rendered CRDs are byte-for-byte the same objects.
//
//   node scripts/charts/kyverno-ts-crds.ts            # (re)write the templates
//   node scripts/charts/kyverno-ts-crds.ts --check    # exit 1 when a template differs from what it would write
//
// The source is `../shared/reference/kyverno-crds/` (Kyverno's CRDs, Apache-2.0, LICENSE beside
// them). When a kind lands in kyverno-ts, add its CRD to SERVED below and run the script.
//
// Plain Node 24 type stripping: erasable TypeScript only.

import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** Where Kyverno's CRDs are read from. */
export const CRD_SOURCE = join(ROOT, "..", "shared", "reference", "kyverno-crds");
/** Where the kyverno-ts chart's CRD templates are written. */
export const CRD_TEMPLATES = join(ROOT, "charts", "kyverno-ts", "templates", "crds");
/** Where the kyverno-ts-crds chart's CRD templates (the CEL policy kinds) are written. */
export const CEL_CRD_TEMPLATES = join(ROOT, "charts", "kyverno-ts-crds", "templates");
/** The upstream commit the reference CRDs come from (see ../shared/reference/README.md). */
const UPSTREAM = "kyverno/kyverno commit 111e07b";

/** One vendored CRD: its source file and the `crds.groups.<group>.<plural>` switch that installs it. */
export interface ServedCrd {
  /** Path under CRD_SOURCE. */
  source: string;
  /** Key under `crds.groups` (upstream's chart names: kyverno, policies, reports, wgpolicyk8s). */
  group: "kyverno" | "policies" | "reports" | "wgpolicyk8s";
  plural: string;
}

/** The CRDs of the kinds kyverno-ts serves today. */
export const SERVED: readonly ServedCrd[] = [
  { source: "kyverno/kyverno.io_clusterpolicies.yaml", group: "kyverno", plural: "clusterpolicies" },
  { source: "kyverno/kyverno.io_policies.yaml", group: "kyverno", plural: "policies" },
  { source: "kyverno/kyverno.io_policyexceptions.yaml", group: "kyverno", plural: "policyexceptions" },
  { source: "kyverno/kyverno.io_cleanuppolicies.yaml", group: "kyverno", plural: "cleanuppolicies" },
  {
    source: "kyverno/kyverno.io_clustercleanuppolicies.yaml",
    group: "kyverno",
    plural: "clustercleanuppolicies",
  },
  { source: "kyverno/kyverno.io_updaterequests.yaml", group: "kyverno", plural: "updaterequests" },
  {
    source: "kyverno/kyverno.io_globalcontextentries.yaml",
    group: "kyverno",
    plural: "globalcontextentries",
  },
  {
    source: "policyreport/wgpolicyk8s.io_clusterpolicyreports.yaml",
    group: "wgpolicyk8s",
    plural: "clusterpolicyreports",
  },
  { source: "policyreport/wgpolicyk8s.io_policyreports.yaml", group: "wgpolicyk8s", plural: "policyreports" },
  {
    source: "reports/reports.kyverno.io_clusterephemeralreports.yaml",
    group: "reports",
    plural: "clusterephemeralreports",
  },
  {
    source: "reports/reports.kyverno.io_ephemeralreports.yaml",
    group: "reports",
    plural: "ephemeralreports",
  },
];

/** The CEL policy kinds' CRDs (every kind of `policies.kyverno.io` upstream ships), for kyverno-ts-crds. */
export const CEL_SERVED: readonly ServedCrd[] = [
  "validatingpolicies",
  "namespacedvalidatingpolicies",
  "mutatingpolicies",
  "namespacedmutatingpolicies",
  "generatingpolicies",
  "namespacedgeneratingpolicies",
  "deletingpolicies",
  "namespaceddeletingpolicies",
  "imagevalidatingpolicies",
  "namespacedimagevalidatingpolicies",
  "policyexceptions",
].map((plural) => ({
  source: `policies.kyverno.io/policies.kyverno.io_${plural}.yaml`,
  group: "policies" as const,
  plural,
}));

/** How a chart wraps its vendored CRDs. */
export interface CrdChart {
  /** Where its templates are written. */
  dir: string;
  crds: readonly ServedCrd[];
  /** The `if` condition of a CRD's template. */
  condition(served: ServedCrd): string;
  /** The named template that renders the metadata (args: root, name, labels, annotations). */
  metadataTemplate: string;
  /**
   * Prefix of the named templates (in `_crd-shared.tpl`) that hold each repeated sub-schema once,
   * included where it occurs: a CRD serves two or three versions with the same or nearly the same
   * schema, a namespaced kind shares its cluster kind's, so the chart (stored in the release Secret
   * besides the rendered manifest) holds far fewer bytes. The rendered CRDs are unchanged.
   */
  sharedPrefix: string;
}

/** The generated file of a chart's shared sub-schemas, at the top of its `dir`. */
export const SHARED_FILE = "_crd-shared.tpl";
/** Sub-schemas smaller than this stay inline (an include costs about 60 bytes). */
const SHARED_MIN_BYTES = 1024;

/** The kyverno-ts chart: classic kinds, reports. */
export const KYVERNO_TS_CRDS: CrdChart = {
  dir: CRD_TEMPLATES,
  crds: SERVED,
  condition: (s) => `and .Values.crds.install .Values.crds.groups.${s.group}.${s.plural}`,
  metadataTemplate: "kyverno-ts.crd.metadata",
  sharedPrefix: "kyverno-ts.crd",
};

/** The kyverno-ts-crds chart: the CEL policy kinds. */
export const CEL_CRDS: CrdChart = {
  dir: CEL_CRD_TEMPLATES,
  crds: CEL_SERVED,
  condition: (s) => `.Values.groups.${s.group}.${s.plural}`,
  metadataTemplate: "kyverno-ts-crds.metadata",
  sharedPrefix: "kyverno-ts-crds.crd",
};

interface CrdObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  spec: { group: string; versions?: Array<{ schema?: unknown } & Record<string, unknown>> };
}

/**
 * Repeated sub-schemas of a chart's CRDs: how often each (by its compact JSON) occurs, and the named
 * templates written for those shared so far (name → body).
 */
interface Shared {
  prefix: string;
  counts: Map<string, number>;
  defines: Map<string, string>;
}

/** Stands for an included sub-schema in the JSON until it becomes an `include` action. */
const includeMark = (name: string): string => `\u0000include:${name}\u0000`;

/** Counts every object and array of `value` (by compact JSON) into `counts`; returns its JSON. */
function countSubtrees(value: unknown, counts: Map<string, number>): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const json = Array.isArray(value)
    ? `[${value.map((v) => countSubtrees(v, counts)).join(",\n")}]`
    : `{${Object.entries(value)
        .map(([k, v]) => `${JSON.stringify(k)}:${countSubtrees(v, counts)}`)
        .join(",\n")}}`;
  counts.set(json, (counts.get(json) ?? 0) + 1);
  return json;
}

/** Compact JSON of `value` in the chart's layout, each shared sub-schema an `include` (top level excepted). */
function sharedJson(value: unknown, shared: Shared, top = true): string {
  const write = (v: unknown, root: boolean): string => {
    if (v === null || typeof v !== "object") return JSON.stringify(v);
    const json = compactLines(v).replaceAll("{\\u007b", "{{");
    if (!root && json.length >= SHARED_MIN_BYTES && (shared.counts.get(json) ?? 0) >= 2) {
      const name = `${shared.prefix}.${createHash("sha256").update(json).digest("hex").slice(0, 12)}`;
      if (!shared.defines.has(name)) shared.defines.set(name, sharedJson(v, shared, true));
      return JSON.stringify(includeMark(name));
    }
    return Array.isArray(v)
      ? `[${v.map((item) => write(item, false)).join(",\n")}]`
      : `{${Object.entries(v)
          .map(([k, item]) => `${JSON.stringify(k)}:${write(item, false)}`)
          .join(",\n")}}`;
  };
  return write(value, top)
    .replaceAll("{{", "{\\u007b")
    .replace(/"\\u0000include:([^"\\]+)\\u0000"/g, (_, name: string) => `{{ include ${goString(name)} . }}`);
}

/** A Go template string literal (JSON string syntax is a subset Go accepts for plain text). */
const goString = (s: string): string => JSON.stringify(s);

/**
 * JSON without indentation, one member or item per line: repeated sub-schemas stay byte-identical at
 * any depth (so they compress well) and no line is long (`helm lint` reads lines of at most 64 KiB).
 * `{{` only occurs inside strings (compact JSON never opens two objects in a row); there the second
 * brace is escaped, so the template engine leaves descriptions alone and the parsed object is the same.
 */
export function compactLines(value: unknown): string {
  const write = (v: unknown): string => {
    if (Array.isArray(v)) return `[${v.map(write).join(",\n")}]`;
    if (v !== null && typeof v === "object")
      return `{${Object.entries(v)
        .map(([k, item]) => `${JSON.stringify(k)}:${write(item)}`)
        .join(",\n")}}`;
    return JSON.stringify(v);
  };
  return write(value).replaceAll("{{", "{\\u007b");
}

/** The chart template for one CRD. */
export function crdTemplate(
  served: ServedCrd,
  text: string,
  chart: CrdChart = KYVERNO_TS_CRDS,
  shared?: Shared,
): { path: string; content: string } {
  const crd = parse(text) as CrdObject;
  if (crd?.kind !== "CustomResourceDefinition" || typeof crd.metadata?.name !== "string")
    throw new Error(`${served.source}: not a CustomResourceDefinition`);
  const { metadata, ...rest } = crd;
  const annotations = Object.entries(metadata.annotations ?? {})
    .map(([k, v]) => `${goString(k)} ${goString(v)}`)
    .join(" ");
  const spec = (shared === undefined ? compactLines(rest) : sharedJson(rest, shared)).slice(1, -1);
  const meta =
    `{{ include ${goString(chart.metadataTemplate)} (dict "root" $ "name" ${goString(metadata.name)} ` +
    `"labels" ${metadata.labels ? `(fromJson ${goString(JSON.stringify(metadata.labels))})` : "(dict)"} ` +
    `"annotations" (dict ${annotations})) }}`;
  const content =
    `{{- /* ${metadata.name}: Kyverno's CustomResourceDefinition (${UPSTREAM}, Apache-2.0), as compact JSON. ` +
    `Generated by scripts/charts/kyverno-ts-crds.ts from ${served.source}: do not edit. */ -}}\n` +
    `{{- if ${chart.condition(served)} }}\n` +
    `{${spec},"metadata":${meta}}\n` +
    "{{- end }}\n";
  return { path: join(crd.spec.group, `${served.plural}.yaml`), content };
}

/** Every template the script writes for `chart`, by path under its `dir`. */
export function renderCrdTemplates(
  source = CRD_SOURCE,
  chart: CrdChart = KYVERNO_TS_CRDS,
): Map<string, string> {
  const texts = chart.crds.map((served) => readFileSync(join(source, served.source), "utf8"));
  const shared: Shared = { prefix: chart.sharedPrefix, counts: new Map(), defines: new Map() };
  for (const text of texts) {
    const { metadata: _, ...rest } = parse(text) as CrdObject;
    countSubtrees(rest, shared.counts);
  }
  const out = new Map<string, string>();
  chart.crds.forEach((served, i) => {
    const { path, content } = crdTemplate(served, texts[i] ?? "", chart, shared);
    out.set(path, content);
  });
  out.set(
    SHARED_FILE,
    `{{- /* Sub-schemas the CRDs of this chart repeat, each once (${UPSTREAM}, Apache-2.0), included ` +
      "where they occur. Generated by scripts/charts/kyverno-ts-crds.ts: do not edit. */ -}}\n" +
      [...shared.defines]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([name, body]) => `{{- define ${goString(name)} -}}\n${body}\n{{- end -}}\n`)
        .join(""),
  );
  return out;
}

/** Generated templates present on disk (in group folders), by path under `dir`. */
function existing(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!existsSync(dir)) return out;
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (d !== dir || entry.name === SHARED_FILE)
        out.set(relative(dir, full), readFileSync(full, "utf8"));
    }
  };
  walk(dir);
  return out;
}

/** Paths that differ between the rendered templates and the files in `dir` (missing, extra or changed). */
export function staleTemplates(rendered: Map<string, string>, dir = CRD_TEMPLATES): string[] {
  const onDisk = existing(dir);
  const paths = new Set([...rendered.keys(), ...onDisk.keys()]);
  return [...paths].filter((p) => rendered.get(p) !== onDisk.get(p)).sort();
}

function main(argv: readonly string[]): number {
  const check = argv.includes("--check");
  if (!existsSync(CRD_SOURCE)) {
    process.stderr.write(`kyverno-ts-crds: ${CRD_SOURCE} not found (Kyverno's CRDs are read from there)\n`);
    return 2;
  }
  let failed = false;
  for (const chart of [KYVERNO_TS_CRDS, CEL_CRDS]) {
    let rendered: Map<string, string>;
    try {
      rendered = renderCrdTemplates(CRD_SOURCE, chart);
    } catch (error) {
      process.stderr.write(`kyverno-ts-crds: ${(error as Error).message}\n`);
      return 2;
    }
    const stale = staleTemplates(rendered, chart.dir);
    if (check) {
      for (const p of stale)
        process.stderr.write(`kyverno-ts-crds: ${relative(ROOT, join(chart.dir, p))} is out of date\n`);
      failed ||= stale.length > 0;
      continue;
    }
    for (const group of new Set([...rendered.keys()].map((p) => dirname(p)).filter((g) => g !== ".")))
      rmSync(join(chart.dir, group), { recursive: true, force: true });
    for (const p of stale.filter((path) => !rendered.has(path))) rmSync(join(chart.dir, p), { force: true });
    let bytes = 0;
    const crds = [...rendered.keys()].filter((p) => p.endsWith(".yaml")).length;
    for (const [path, content] of rendered) {
      const target = join(chart.dir, path);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, content);
      bytes += Buffer.byteLength(content);
    }
    process.stdout.write(
      `kyverno-ts-crds: ${crds} CRDs written to ${relative(ROOT, chart.dir)} (${(bytes / 1024).toFixed(0)} KiB)\n`,
    );
  }
  return failed ? 1 : 0;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = main(process.argv.slice(2));
}
