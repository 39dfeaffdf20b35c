import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type Document, isMap, isScalar, isSeq, parseAllDocuments } from "yaml";
import type { CliIo } from "../io.js";
import { ExitCode } from "../io.js";
import { loadPolicyDocuments, parseSources, type Warnings } from "../load/documents.js";
import { displayPath } from "../load/files.js";
import { BundleMessages } from "../output/messages.js";
import { reportProblems } from "../output/problems.js";

/** The failure action the whole set switches between: Audit (staging) or Enforce (production). */
export type BundleAction = "Audit" | "Enforce";

/** Flags of `kyverno-ts bundle`. */
export interface BundleOptions {
  action: BundleAction;
  /** Write one file per policy into this directory instead of printing. */
  out?: string;
}

/**
 * The repository's `policies/` folder: `src/commands` and `dist/commands` both sit four levels
 * below the repository root (`packages/cli/{src,dist}/commands`).
 */
export const BUNDLED_POLICIES = new URL("../../../../policies/", import.meta.url);

const POLICY_KINDS = new Set(["ClusterPolicy", "Policy"]);

/** A replacement of the bytes `[start, end)` of a file. */
interface Edit {
  start: number;
  end: number;
  text: string;
}

/**
 * Sets the failure action on every policy document: the spec's `validationFailureAction`, and a
 * rule's `validate.failureAction` where one is written, since it would override the spec. Existing
 * values are replaced in place, so the rest of the file (comments, folded text) is kept byte for
 * byte; a policy without the field gets it through the document model. Returns the new text, and
 * the number of policies.
 */
function setAction(
  source: string,
  docs: readonly Document[],
  action: BundleAction,
): { text: string; policies: number } {
  let policies = 0;
  const edits: Edit[] = [];
  let rewritten = false;
  const replace = (node: unknown): boolean => {
    if (!isScalar(node) || !node.range) return false;
    edits.push({ start: node.range[0], end: node.range[1], text: action });
    return true;
  };
  for (const doc of docs) {
    const kind = doc.get("kind");
    if (typeof kind !== "string" || !POLICY_KINDS.has(kind)) continue;
    policies++;
    if (!replace(doc.getIn(["spec", "validationFailureAction"], true))) {
      doc.setIn(["spec", "validationFailureAction"], action);
      rewritten = true;
    }
    const rules = doc.getIn(["spec", "rules"]);
    if (!isSeq(rules)) continue;
    for (const rule of rules.items) {
      if (!isMap(rule)) continue;
      const validate = rule.get("validate");
      if (isMap(validate) && validate.has("failureAction") && !replace(validate.get("failureAction", true))) {
        validate.set("failureAction", action);
        rewritten = true;
      }
    }
  }
  if (rewritten) return { text: docs.map((d) => d.toString()).join("---\n"), policies };
  let text = source;
  for (const e of edits.sort((a, b) => b.start - a.start))
    text = `${text.slice(0, e.start)}${e.text}${text.slice(e.end)}`;
  return { text, policies };
}

/** The top-level YAML files of the folder, sorted (tests and other sub-folders are not part of the set). */
function policyFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && /\.ya?ml$/i.test(e.name))
    .map((e) => e.name)
    .sort();
}

/**
 * `bundle`: prints the bundled policy set (the top-level `policies/*.yaml` of the repository) with
 * the failure action of every policy set to `--action`, or writes the files into `--out`. Each
 * printed policy is checked with the policy loader. Exit 2 when the folder is missing or a policy
 * does not load.
 */
export function runBundle(options: BundleOptions, io: CliIo, folder: URL = BUNDLED_POLICIES): number {
  const dir = fileURLToPath(folder);
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) return reportProblems(io, [{ file: "bundle", message: BundleMessages.missing(dir) }]);
  const files = policyFiles(dir);
  if (files.length === 0) return reportProblems(io, [{ file: "bundle", message: BundleMessages.empty(dir) }]);

  const outputs: Array<{ name: string; text: string }> = [];
  const warnings: Warnings = [];
  for (const name of files) {
    const path = join(dir, name);
    const display = displayPath(io.cwd, path);
    const source = readFileSync(path, "utf8");
    const docs = parseAllDocuments(source);
    if (!Array.isArray(docs)) continue;
    const broken = docs.flatMap((d) => d.errors);
    if (broken.length > 0)
      return reportProblems(
        io,
        broken.map((e) => ({ file: display, message: e.message })),
      );
    const { text, policies } = setAction(source, docs, options.action);
    if (policies === 0) continue;
    // The changed set must still load as policies.
    const parsed = parseSources([{ path, display, text }], warnings);
    const loaded = parsed.ok ? loadPolicyDocuments(parsed.value, warnings) : parsed;
    if (!loaded.ok) return reportProblems(io, loaded.problems);
    outputs.push({ name, text });
  }
  if (options.out === undefined) {
    io.stdout.write(outputs.map((o) => `# ${BundleMessages.source(o.name)}\n${o.text}`).join("---\n"));
    return ExitCode.Ok;
  }
  const target = resolve(io.cwd, options.out);
  try {
    mkdirSync(target, { recursive: true });
    for (const o of outputs) writeFileSync(join(target, o.name), o.text);
  } catch (error) {
    return reportProblems(io, [{ file: options.out, message: (error as Error).message }]);
  }
  io.stderr.write(`${BundleMessages.written(outputs.length, options.out, options.action)}\n`);
  return ExitCode.Ok;
}
