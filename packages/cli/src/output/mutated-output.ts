import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { JsonValue, KubeObject } from "@kyverno-ts/api";
import type { GeneratedResource } from "@kyverno-ts/engine";
import { stringify } from "yaml";
import type { Evaluated } from "../run/judge.js";
import { resourcePath } from "./apply-output.js";
import { ApplyMessages } from "./messages.js";

function isObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The object with `apiVersion`, `kind` and `metadata` first, as Kubernetes prints objects. */
function canonical(object: KubeObject | JsonValue): KubeObject | JsonValue {
  if (!isObject(object as JsonValue)) return object;
  const { apiVersion, kind, metadata, ...rest } = object as KubeObject;
  return {
    ...(apiVersion !== undefined ? { apiVersion } : {}),
    ...(kind !== undefined ? { kind } : {}),
    ...(metadata !== undefined ? { metadata } : {}),
    ...rest,
  } as KubeObject;
}

/** A YAML document, as upstream prints resources. */
export function toYaml(object: KubeObject | JsonValue): string {
  return stringify(canonical(object), { lineWidth: 0 });
}

/** A generated object as it would exist in the cluster: with Kyverno's generate labels. */
export function withGenerateLabels(g: GeneratedResource): KubeObject {
  const labels = { ...(g.object.metadata?.labels ?? {}), ...g.labels };
  return { ...g.object, metadata: { ...g.object.metadata, labels } };
}

/** Whether any mutate rule of a response changed the resource (upstream prints it only then). */
function mutated(e: Evaluated): boolean {
  return e.response.rules.some((r) => r.type === "Mutation" && r.status === "pass");
}

/**
 * Upstream's blocks for mutate and generate results, in evaluation order: for each policy that
 * mutated a resource, `mutate policy <p> applied to <ns/Kind/name>:` then the patched resource and
 * `---`; mutate-existing policies add `patched targets:` and each patched target; generate policies
 * print each generated resource. With `bare` (resources piped from stdin) only the YAML is printed.
 */
export function renderMutations(evaluated: readonly Evaluated[], bare: boolean): string {
  const out: string[] = [];
  const heading = (text: string) => {
    if (!bare) out.push(`\n${text}\n`);
  };
  for (const e of evaluated) {
    const path = resourcePath(e.response.resource);
    const name = e.response.policy.name;
    if (e.phase === "mutate" && mutated(e) && isObject(e.response.patchedResource)) {
      heading(ApplyMessages.mutated(name, path));
      out.push(`${toYaml(e.response.patchedResource)}---\n`);
    } else if (e.phase === "mutateExisting" && mutated(e)) {
      heading(ApplyMessages.mutated(name, path));
      out.push(`${toYaml(e.resource)}---\n`);
      if (!bare) out.push(`${ApplyMessages.patchedTargets}\n`);
      for (const r of e.response.rules)
        for (const t of r.patchedTargets ?? []) out.push(`\n${toYaml(t.patched)}---\n`);
    } else if (e.phase === "generate") {
      for (const r of e.response.rules) {
        for (const g of r.generated ?? []) {
          heading(ApplyMessages.generated(name, path));
          out.push(`${toYaml(withGenerateLabels(g))}---\n`);
        }
      }
    }
  }
  return out.join("");
}

/** A resource to write with `-o <path>`, and the file name stem it gets in a directory. */
export interface OutputDocument {
  object: KubeObject;
  /** `<name>-mutated` or `<name>-generated`, as upstream names the files. */
  stem: string;
}

/**
 * The resources `-o <path>` writes: each resource changed by the mutate policies, once, as patched
 * by all of them; each patched mutate-existing target; each generated resource (with Kyverno's
 * generate labels).
 */
export function outputDocuments(evaluated: readonly Evaluated[]): OutputDocument[] {
  const finals = new Map<KubeObject, KubeObject>();
  const docs: OutputDocument[] = [];
  for (const e of evaluated) {
    if (e.phase === "mutate" && mutated(e) && isObject(e.response.patchedResource))
      finals.set(e.original, e.response.patchedResource as KubeObject);
  }
  for (const [original, patched] of finals)
    docs.push({ object: patched, stem: `${original.metadata?.name ?? "resource"}-mutated` });
  for (const e of evaluated) {
    for (const r of e.response.rules) {
      if (e.phase === "mutateExisting") {
        for (const t of r.patchedTargets ?? []) {
          if (!isObject(t.patched)) continue;
          const object = t.patched as KubeObject;
          docs.push({ object, stem: `${object.metadata?.name ?? "target"}-mutated` });
        }
      }
      if (e.phase === "generate") {
        for (const g of r.generated ?? [])
          docs.push({
            object: withGenerateLabels(g),
            stem: `${g.object.metadata?.name ?? "resource"}-generated`,
          });
      }
    }
  }
  return docs;
}

const YAML_FILE = /\.(ya?ml|json)$/i;

/** How `-o <path>` is written: a directory (one file per resource) or one multi-document file. */
export function outputIsDirectory(absolute: string, written: string): boolean {
  try {
    if (statSync(absolute).isDirectory()) return true;
  } catch {
    // Does not exist yet: decided by its name, as upstream does.
  }
  return written.endsWith("/") || !YAML_FILE.test(written);
}

/** A file-name-safe stem. */
function safe(stem: string): string {
  return stem.replace(/[^A-Za-z0-9._-]/g, "_");
}

/**
 * Writes the documents to `-o <path>`: into a directory (created if needed) one
 * `<name>-mutated.yaml` / `<name>-generated.yaml` per resource (a kind/namespace prefix keeps
 * same-named resources apart), or else into one multi-document YAML file (replaced).
 * Returns the files written; throws on I/O errors.
 */
export function writeOutputDocuments(
  cwd: string,
  written: string,
  docs: readonly OutputDocument[],
): string[] {
  const absolute = resolve(cwd, written);
  if (!outputIsDirectory(absolute, written)) {
    const parent = resolve(absolute, "..");
    mkdirSync(parent, { recursive: true });
    writeFileSync(absolute, docs.map((d) => toYaml(d.object)).join("---\n"));
    return [absolute];
  }
  mkdirSync(absolute, { recursive: true });
  const used = new Set<string>();
  const files: string[] = [];
  for (const d of docs) {
    let stem = safe(d.stem);
    if (used.has(stem)) {
      const ns = d.object.metadata?.namespace;
      stem = safe(`${(d.object.kind ?? "").toLowerCase()}-${ns ? `${ns}-` : ""}${d.stem}`);
    }
    for (let i = 2; used.has(stem); i++) stem = `${safe(d.stem)}-${i}`;
    used.add(stem);
    const file = join(absolute, `${stem}.yaml`);
    writeFileSync(file, toYaml(d.object));
    files.push(file);
  }
  return files;
}
