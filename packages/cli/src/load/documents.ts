import {
  type AdmissionPolicyBinding,
  type AdmissionPolicyDocument,
  type CelPolicyException,
  classifyDocument,
  type JsonValue,
  type KubeObject,
  type LoadError,
  type Loaded,
  loadAdmissionPolicy,
  loadCelPolicy,
  loadCelPolicyException,
  loadPolicy,
  loadPolicyException,
  type ParsedDocument,
  type PolicyException,
  parseDocuments,
  type Where,
} from "@kyverno-ts/api";
import { InputMessages } from "../output/messages.js";
import type { SourcedCelPolicy } from "../run/cel.js";
import type { SourcedPolicy } from "../run/compile.js";
import type { InputProblem, InputResult, SourceFile } from "./files.js";
import { withDefaultNamespace } from "./scope.js";

/** A parsed document with the file it came from. */
export interface SourcedDocument extends ParsedDocument {
  file: string;
}

/** Warnings collected while loading (deprecated fields, duplicate keys): shown, never fatal. */
export type Warnings = LoadError[];

/** Parses every source into documents; syntax errors of all files are collected. */
export function parseSources(
  sources: readonly SourceFile[],
  warnings: Warnings,
): InputResult<SourcedDocument[]> {
  const documents: SourcedDocument[] = [];
  const problems: InputProblem[] = [];
  for (const source of sources) {
    const parsed = parseDocuments(source.text, source.display);
    problems.push(...parsed.errors);
    warnings.push(...parsed.warnings);
    for (const d of parsed.documents) documents.push({ ...d, file: source.display });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: documents };
}

function whereOf(doc: SourcedDocument): Where {
  return { file: doc.file, document: doc.document, locate: doc.locate };
}

function field(value: JsonValue, key: string): string {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "";
  const v = value[key];
  return typeof v === "string" ? v : "";
}

/** Policies, exceptions and skipped documents found in policy files. */
export interface LoadedPolicies {
  policies: SourcedPolicy[];
  exceptions: PolicyException[];
  /** `policies.kyverno.io` policies and Kubernetes Validating/MutatingAdmissionPolicies. */
  cel: SourcedCelPolicy[];
  /** `policies.kyverno.io` PolicyExceptions found among the policies. */
  celExceptions: CelPolicyException[];
  /** Bindings of the admission policies. */
  bindings: AdmissionPolicyBinding[];
  /** Documents of kinds this version does not evaluate. */
  skipped: Array<{ file: string; kind: string }>;
}

function collect<T>(loaded: Loaded<T>, problems: InputProblem[], warnings: Warnings): T | undefined {
  if (!loaded.ok) {
    problems.push(...loaded.errors);
    return undefined;
  }
  warnings.push(...loaded.warnings);
  return loaded.value;
}

/**
 * Loads the policies (and PolicyExceptions) of policy files: kyverno.io and policies.kyverno.io
 * kinds, Kubernetes admission policies and their bindings. Invalid policies are input problems;
 * documents of other kinds are ignored.
 */
export function loadPolicyDocuments(
  documents: readonly SourcedDocument[],
  warnings: Warnings,
): InputResult<LoadedPolicies> {
  const out: LoadedPolicies = {
    policies: [],
    exceptions: [],
    cel: [],
    celExceptions: [],
    bindings: [],
    skipped: [],
  };
  const problems: InputProblem[] = [];
  for (const doc of documents) {
    const cls = classifyDocument(doc.value);
    if (cls === "ClusterPolicy" || cls === "Policy") {
      const policy = collect(loadPolicy(doc.value, whereOf(doc)), problems, warnings);
      if (policy) out.policies.push({ policy, file: doc.file, document: doc.document });
    } else if (cls === "PolicyException") {
      const exception = collect(loadPolicyException(doc.value, whereOf(doc)), problems, warnings);
      if (exception) out.exceptions.push(exception);
    } else if (cls === "CelPolicy") {
      const policy = collect(loadCelPolicy(doc.value, whereOf(doc)), problems, warnings);
      if (policy) out.cel.push({ policy, file: doc.file, document: doc.document });
    } else if (cls === "CelPolicyException") {
      const exception = collect(loadCelPolicyException(doc.value, whereOf(doc)), problems, warnings);
      if (exception) out.celExceptions.push(exception);
    } else if (cls === "AdmissionPolicy") {
      const loaded = collect(loadAdmissionPolicy(doc.value, whereOf(doc)), problems, warnings);
      if (loaded === undefined) continue;
      if (isBinding(loaded)) out.bindings.push(loaded);
      else out.cel.push({ policy: loaded, file: doc.file, document: doc.document });
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: out };
}

function isBinding(d: AdmissionPolicyDocument): d is AdmissionPolicyBinding {
  return d.kind === "ValidatingAdmissionPolicyBinding" || d.kind === "MutatingAdmissionPolicyBinding";
}

/**
 * What the documents of each file are, for the error when no file held a policy: `Pod` for one
 * document, `2 × Deployment, a Service` for several, undefined for a file without documents.
 */
export function describeFiles(
  files: readonly string[],
  documents: readonly SourcedDocument[],
): Array<{ file: string; held: string | undefined }> {
  return files.map((file) => {
    const counts = new Map<string, number>();
    for (const doc of documents) {
      if (doc.file !== file) continue;
      const kind = field(doc.value, "kind") || "document without a kind";
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
    }
    const parts = [...counts].map(([kind, n]) => (n === 1 ? `a ${kind}` : `${n} × ${kind}`));
    return { file, held: parts.length === 0 ? undefined : parts.join(", ") };
  });
}

/** PolicyExceptions of exception files: kyverno.io ones and policies.kyverno.io (CEL) ones. */
export interface LoadedExceptions {
  classic: PolicyException[];
  cel: CelPolicyException[];
}

/** Loads PolicyExceptions from exception files; other documents are input problems. */
export function loadExceptionDocuments(
  documents: readonly SourcedDocument[],
  warnings: Warnings,
): InputResult<LoadedExceptions> {
  const out: LoadedExceptions = { classic: [], cel: [] };
  const problems: InputProblem[] = [];
  for (const doc of documents) {
    if (classifyDocument(doc.value) === "CelPolicyException") {
      const exception = collect(loadCelPolicyException(doc.value, whereOf(doc)), problems, warnings);
      if (exception) out.cel.push(exception);
      continue;
    }
    const exception = collect(loadPolicyException(doc.value, whereOf(doc)), problems, warnings);
    if (exception) out.classic.push(exception);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: out };
}

function isObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Turns resource documents into Kubernetes objects: `List` kinds are flattened, every object must
 * have `kind` and `metadata.name` (or `generateName`), and namespaced objects without a namespace
 * are put in `default`, as the Kyverno CLI does.
 */
export function loadResourceDocuments(documents: readonly SourcedDocument[]): InputResult<KubeObject[]> {
  const out: KubeObject[] = [];
  const problems: InputProblem[] = [];
  const add = (value: JsonValue, doc: SourcedDocument, path: string) => {
    const problem = (p: string, message: string, code: LoadError["code"]) => {
      const e: LoadError = { code, file: doc.file, document: doc.document, path: p, message };
      const line = doc.locate([]);
      if (line !== undefined) e.line = line;
      problems.push(e);
    };
    if (!isObject(value)) return problem(path, InputMessages.resourceNotObject, "wrong-type");
    const kind = value.kind;
    if (typeof kind !== "string" || kind === "")
      return problem(path, InputMessages.missingField("kind"), "missing-field");
    const items = value.items;
    if (kind.endsWith("List") && Array.isArray(items)) {
      items.forEach((item, i) => {
        add(item, doc, `${path === "" ? "" : `${path}.`}items[${i}]`);
      });
      return;
    }
    const metadata = value.metadata;
    if (
      !isObject(metadata) ||
      (typeof metadata.name !== "string" && typeof metadata.generateName !== "string")
    ) {
      return problem(
        path === "" ? "metadata" : `${path}.metadata`,
        InputMessages.missingField("name"),
        "missing-field",
      );
    }
    out.push(withDefaultNamespace(value as KubeObject));
  };
  for (const doc of documents) add(doc.value, doc, "");
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: out };
}

/** Key identifying a resource for duplicate detection: apiVersion/kind/namespace/name. */
export function resourceKey(r: KubeObject): string {
  return [r.apiVersion ?? "", r.kind ?? "", r.metadata?.namespace ?? "", r.metadata?.name ?? ""].join("/");
}
