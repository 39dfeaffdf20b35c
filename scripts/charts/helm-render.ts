/**
 * Runs the Helm binary of `scripts/cluster-tools.ts` on a chart of this repository, for the chart
 * tests and the template benchmark: `helm template` into parsed objects, `helm lint --strict`, and
 * the outcome of a failing run (its message), without a cluster.
 */
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { parseAllDocuments } from "yaml";
import { ensureHelm, withoutHelmNotes } from "../cluster-tools.ts";
import { REPO_ROOT } from "./generate.ts";

/** A rendered Kubernetes object (as parsed from YAML). */
export interface RenderedObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
}

/** What to render: values files (relative to the repository root) and `--set` pairs. */
export interface RenderOptions {
  valuesFiles?: readonly string[];
  set?: Readonly<Record<string, string>>;
  release?: string;
  namespace?: string;
  /** Extra arguments for `helm template` (e.g. `--show-only`). */
  args?: readonly string[];
}

/** The outcome of one Helm command. */
export interface HelmOutcome {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs Helm with `args` from the repository root. */
export function helm(args: readonly string[]): HelmOutcome {
  const run = spawnSync(ensureHelm(), args, { cwd: REPO_ROOT, encoding: "utf8" });
  return { status: run.status ?? 1, stdout: run.stdout, stderr: withoutHelmNotes(run.stderr) };
}

function renderArgs(chart: string, options: RenderOptions): string[] {
  return [
    "template",
    options.release ?? "test",
    resolve(REPO_ROOT, chart),
    "--namespace",
    options.namespace ?? "platform",
    ...(options.valuesFiles ?? []).flatMap((f) => ["-f", resolve(REPO_ROOT, f)]),
    ...Object.entries(options.set ?? {}).flatMap(([k, v]) => ["--set", `${k}=${v}`]),
    ...(options.args ?? []),
  ];
}

/** `helm template` of `chart` (a path relative to the repository root, or absolute): the raw output. Throws with Helm's message on failure. */
export function renderText(chart: string, options: RenderOptions = {}): string {
  const out = helm(renderArgs(chart, options));
  if (out.status !== 0) throw new Error(`helm template ${chart} failed: ${out.stderr.trim()}`);
  return out.stdout;
}

/** `helm template` of `chart`, parsed into its objects (empty documents dropped). */
export function render(chart: string, options: RenderOptions = {}): RenderedObject[] {
  return parseAllDocuments(renderText(chart, options))
    .map((d) => d.toJS() as RenderedObject | null)
    .filter((o): o is RenderedObject => o !== null);
}

/** `helm template` expected to fail: Helm's error message (throws when it succeeds). */
export function renderError(chart: string, options: RenderOptions = {}): string {
  const out = helm(renderArgs(chart, options));
  if (out.status === 0) throw new Error(`helm template ${chart} succeeded, expected a failure`);
  return out.stderr;
}

/** `helm lint --strict` of `chart` with the values files. */
export function lint(chart: string, valuesFiles: readonly string[] = []): HelmOutcome {
  return helm([
    "lint",
    "--strict",
    resolve(REPO_ROOT, chart),
    ...valuesFiles.flatMap((f) => ["-f", resolve(REPO_ROOT, f)]),
  ]);
}

/** The one object of `kind` named `name` (throws naming what is missing). */
export function find(objects: readonly RenderedObject[], kind: string, name?: string): RenderedObject {
  const found = objects.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (!found) throw new Error(`no ${kind}${name ? ` ${name}` : ""} in the rendered chart`);
  return found;
}
