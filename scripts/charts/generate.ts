/**
 * Writes (or checks) the generated files of the Helm charts:
 *
 *   node scripts/charts/generate.ts           # rewrite them from policies/*.yaml (and the schema sources)
 *   node scripts/charts/generate.ts --check   # exit 1 and name every file that is out of date
 *
 * `charts/kyverno-ts-policies/templates/<policy>.yaml`, its `values.yaml` and `values.schema.json`
 * come from `policies/*.yaml`; `charts/policy-reporter/values.schema.json` from
 * `policy-reporter-schema.ts`. JSON goes through the repository's formatter (Biome), so `npm run lint`
 * and this check agree on the bytes.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type GeneratedFile, POLICIES_CHART, policiesChartFiles } from "./policies-chart.ts";
import { POLICY_REPORTER_CHART, policyReporterSchema } from "./policy-reporter-schema.ts";
import { GENERATED_MARKER } from "./policy-template.ts";

/** The repository root (two levels above this file). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Formats JSON as Biome does with the repository's settings (always the repository's Biome and biome.json). */
function formatJson(path: string, text: string): string {
  return execFileSync(
    join(REPO_ROOT, "node_modules", ".bin", "biome"),
    ["format", `--stdin-file-path=${path}`],
    {
      cwd: REPO_ROOT,
      input: text,
      encoding: "utf8",
    },
  );
}

/** Every generated file, as it should be. */
export function generatedFiles(root: string = REPO_ROOT): GeneratedFile[] {
  const files = [
    ...policiesChartFiles(root),
    {
      path: `${POLICY_REPORTER_CHART}/values.schema.json`,
      content: `${JSON.stringify(policyReporterSchema(), null, 2)}\n`,
    },
  ];
  return files.map((f) => (f.path.endsWith(".json") ? { ...f, content: formatJson(f.path, f.content) } : f));
}

/** Generated templates of the policies chart whose policy no longer exists. */
function staleTemplates(root: string, files: readonly GeneratedFile[]): string[] {
  const dir = join(root, POLICIES_CHART, "templates");
  if (!existsSync(dir)) return [];
  const wanted = new Set(files.map((f) => f.path));
  return readdirSync(dir)
    .map((name) => `${POLICIES_CHART}/templates/${name}`)
    .filter(
      (path) => !wanted.has(path) && readFileSync(join(root, path), "utf8").startsWith(GENERATED_MARKER),
    );
}

/** The files that differ from what the generator would write (missing, changed or stale). */
export function outdatedFiles(root: string = REPO_ROOT): string[] {
  const files = generatedFiles(root);
  const changed = files
    .filter((f) => {
      const path = join(root, f.path);
      return !existsSync(path) || readFileSync(path, "utf8") !== f.content;
    })
    .map((f) => f.path);
  return [...changed, ...staleTemplates(root, files)];
}

/** Writes every generated file and removes stale templates; returns the paths written or removed. */
export function writeGeneratedFiles(root: string = REPO_ROOT): string[] {
  const files = generatedFiles(root);
  const stale = staleTemplates(root, files);
  const touched: string[] = [];
  for (const f of files) {
    const path = join(root, f.path);
    if (existsSync(path) && readFileSync(path, "utf8") === f.content) continue;
    writeFileSync(path, f.content);
    touched.push(f.path);
  }
  for (const path of stale) rmSync(join(root, path));
  return [...touched, ...stale];
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes("--check");
  try {
    if (check) {
      const outdated = outdatedFiles();
      if (outdated.length > 0) {
        process.stderr.write(
          `out of date with policies/ (run node scripts/charts/generate.ts):\n${outdated.map((p) => `  ${p}\n`).join("")}`,
        );
        process.exit(1);
      }
      process.stdout.write("charts: generated files are up to date\n");
    } else {
      const touched = writeGeneratedFiles();
      process.stdout.write(
        touched.length ? `${touched.map((p) => `updated ${p}\n`).join("")}` : "charts: nothing to update\n",
      );
    }
  } catch (error) {
    process.stderr.write(`charts: ${(error as Error).message}\n`);
    process.exit(2);
  }
}
