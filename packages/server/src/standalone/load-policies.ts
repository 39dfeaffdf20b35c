/** Reading policies and PolicyExceptions from files, for standalone mode (no cluster to watch). */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  type CelPolicy,
  classifyDocument,
  formatLoadError,
  loadCelPolicy,
  loadPolicy,
  loadPolicyException,
  type Policy,
  type PolicyException,
  parseDocuments,
} from "@kyverno-ts/api";

/** What a directory (or file) held. */
export interface LoadedPolicies {
  policies: Policy[];
  exceptions: PolicyException[];
  /** `policies.kyverno.io` policies (ValidatingPolicy, MutatingPolicy…), served on the CEL webhooks. */
  celPolicies: CelPolicy[];
  /** Errors, one line each (`file:line (document n): path: message`); policies with errors are left out. */
  problems: string[];
  /** Warnings (deprecated forms), one line each. */
  warnings: string[];
}

const EXTENSIONS = [".yaml", ".yml", ".json"];

/** YAML/JSON files under `path`, sorted; hidden directories (test fixtures such as `.chainsaw-test`) are skipped. */
export function policyFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  const out: string[] = [];
  for (const entry of readdirSync(path, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith(".")) continue;
    const full = join(path, entry.name);
    if (entry.isDirectory()) out.push(...policyFiles(full));
    else if (entry.isFile() && EXTENSIONS.some((e) => entry.name.toLowerCase().endsWith(e))) out.push(full);
  }
  return out;
}

/**
 * Loads every ClusterPolicy, Policy, PolicyException and CEL policy found under the given paths; other documents
 * are ignored. Never throws for bad content: unreadable files and invalid documents become `problems`.
 */
export function loadPolicyFiles(paths: readonly string[]): LoadedPolicies {
  const out: LoadedPolicies = { policies: [], exceptions: [], celPolicies: [], problems: [], warnings: [] };
  for (const root of paths) {
    let files: string[];
    try {
      files = policyFiles(root);
    } catch (error) {
      out.problems.push(`${root}: ${(error as Error).message}`);
      continue;
    }
    for (const file of files) {
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch (error) {
        out.problems.push(`${file}: ${(error as Error).message}`);
        continue;
      }
      const parsed = parseDocuments(text, file);
      out.problems.push(...parsed.errors.map(formatLoadError));
      out.warnings.push(...parsed.warnings.map(formatLoadError));
      for (const doc of parsed.documents) {
        const where = { file, document: doc.document, locate: doc.locate };
        const cls = classifyDocument(doc.value);
        if (cls === "CelPolicy") {
          const cel = loadCelPolicy(doc.value, where);
          if (cel.ok) out.celPolicies.push(cel.value);
          else out.problems.push(...cel.errors.map(formatLoadError));
          continue;
        }
        const loaded =
          cls === "ClusterPolicy" || cls === "Policy"
            ? loadPolicy(doc.value, where)
            : cls === "PolicyException"
              ? loadPolicyException(doc.value, where)
              : undefined;
        if (loaded === undefined) continue;
        if (!loaded.ok) {
          out.problems.push(...loaded.errors.map(formatLoadError));
          continue;
        }
        out.warnings.push(...loaded.warnings.map(formatLoadError));
        if (loaded.value.kind === "PolicyException") out.exceptions.push(loaded.value);
        else out.policies.push(loaded.value);
      }
    }
  }
  return out;
}
