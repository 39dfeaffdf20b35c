// Vendors Kyverno's CustomResourceDefinitions for the kinds kyverno-ts serves into the Helm chart
// (`charts/kyverno-ts/templates/crds/<group>/<plural>.yaml`), unchanged except for their layout:
// each CRD is written as one line of compact JSON (valid YAML), wrapped in the chart's
// `crds.install` / `crds.groups.*` switches, with the chart's labels and `crds.annotations` added
// to its metadata. Compact JSON keeps the Helm release Secret under its 1 MiB limit: the indented
// YAML of the two policy CRDs alone is 2.8 MB and, stored twice in a release (chart + manifest),
// gzips to more than 1 MiB; as JSON the same objects compress to about 0.55 MiB.
//
//   node scripts/charts/kyverno-ts-crds.ts            # (re)write the templates
//   node scripts/charts/kyverno-ts-crds.ts --check    # exit 1 when a template differs from what it would write
//
// The source is `../shared/reference/kyverno-crds/` (Kyverno's CRDs, Apache-2.0, LICENSE beside
// them). When a kind lands in kyverno-ts, add its CRD to SERVED below and run the script.
//
// Plain Node 24 type stripping: erasable TypeScript only.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** Where Kyverno's CRDs are read from. */
export const CRD_SOURCE = join(ROOT, "..", "shared", "reference", "kyverno-crds");
/** Where the chart's CRD templates are written. */
export const CRD_TEMPLATES = join(ROOT, "charts", "kyverno-ts", "templates", "crds");
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

interface CrdObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  spec: { group: string };
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
export function crdTemplate(served: ServedCrd, text: string): { path: string; content: string } {
  const crd = parse(text) as CrdObject;
  if (crd?.kind !== "CustomResourceDefinition" || typeof crd.metadata?.name !== "string")
    throw new Error(`${served.source}: not a CustomResourceDefinition`);
  const { metadata, ...rest } = crd;
  const annotations = Object.entries(metadata.annotations ?? {})
    .map(([k, v]) => `${goString(k)} ${goString(v)}`)
    .join(" ");
  const spec = compactLines(rest).slice(1, -1);
  const meta =
    `{{ include "kyverno-ts.crd.metadata" (dict "root" $ "name" ${goString(metadata.name)} ` +
    `"labels" ${metadata.labels ? `(fromJson ${goString(JSON.stringify(metadata.labels))})` : "(dict)"} ` +
    `"annotations" (dict ${annotations})) }}`;
  const content =
    `{{- /* ${metadata.name}: Kyverno's CustomResourceDefinition (${UPSTREAM}, Apache-2.0), as compact JSON. ` +
    `Generated by scripts/charts/kyverno-ts-crds.ts from ${served.source}: do not edit. */ -}}\n` +
    `{{- if and .Values.crds.install .Values.crds.groups.${served.group}.${served.plural} }}\n` +
    `{${spec},"metadata":${meta}}\n` +
    "{{- end }}\n";
  return { path: join(crd.spec.group, `${served.plural}.yaml`), content };
}

/** Every template the script writes, by path under CRD_TEMPLATES. */
export function renderCrdTemplates(source = CRD_SOURCE): Map<string, string> {
  const out = new Map<string, string>();
  for (const served of SERVED) {
    const file = join(source, served.source);
    const { path, content } = crdTemplate(served, readFileSync(file, "utf8"));
    out.set(path, content);
  }
  return out;
}

/** Templates present on disk, by path under `dir`. */
function existing(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!existsSync(dir)) return out;
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.set(relative(dir, full), readFileSync(full, "utf8"));
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
  let rendered: Map<string, string>;
  try {
    rendered = renderCrdTemplates();
  } catch (error) {
    process.stderr.write(`kyverno-ts-crds: ${(error as Error).message}\n`);
    return 2;
  }
  const stale = staleTemplates(rendered);
  if (check) {
    for (const p of stale)
      process.stderr.write(`kyverno-ts-crds: ${join("templates/crds", p)} is out of date\n`);
    return stale.length === 0 ? 0 : 1;
  }
  rmSync(CRD_TEMPLATES, { recursive: true, force: true });
  let bytes = 0;
  for (const [path, content] of rendered) {
    const target = join(CRD_TEMPLATES, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
    bytes += Buffer.byteLength(content);
  }
  process.stdout.write(
    `kyverno-ts-crds: ${rendered.size} CRDs written to ${relative(ROOT, CRD_TEMPLATES)} (${(bytes / 1024).toFixed(0)} KiB)\n`,
  );
  return 0;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = main(process.argv.slice(2));
}
