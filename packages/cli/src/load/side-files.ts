import {
  type JsonValue,
  type KubeObject,
  type LoadError,
  loadUserInfo,
  loadValues,
  type RequestInfo,
  type ValuesSpec,
} from "@kyverno-ts/api";
import { InputMessages } from "../output/messages.js";
import { parseSources, type SourcedDocument, type Warnings } from "./documents.js";
import type { InputResult, SourceFile } from "./files.js";

function single(source: SourceFile, what: string, warnings: Warnings): InputResult<SourcedDocument> {
  const parsed = parseSources([source], warnings);
  if (!parsed.ok) return parsed;
  const doc = parsed.value[0];
  if (!doc) {
    const e: LoadError = {
      code: "missing-field",
      file: source.display,
      path: "",
      message: InputMessages.emptyFile(what),
    };
    return { ok: false, problems: [e] };
  }
  return { ok: true, value: doc };
}

/** Loads a `cli.kyverno.io/v1alpha1` Values (or `Value`) file: the first document of the source. */
export function loadValuesSource(source: SourceFile, warnings: Warnings): InputResult<ValuesSpec> {
  const doc = single(source, "values", warnings);
  if (!doc.ok) return doc;
  const loaded = loadValues(doc.value.value, {
    file: doc.value.file,
    document: doc.value.document,
    locate: doc.value.locate,
  });
  if (!loaded.ok) return { ok: false, problems: loaded.errors };
  warnings.push(...loaded.warnings);
  return { ok: true, value: loaded.value };
}

/** Loads a `cli.kyverno.io/v1alpha1` UserInfo file: roles, cluster roles and the requesting user. */
export function loadUserInfoSource(source: SourceFile, warnings: Warnings): InputResult<RequestInfo> {
  const doc = single(source, "user info", warnings);
  if (!doc.ok) return doc;
  const loaded = loadUserInfo(doc.value.value, {
    file: doc.value.file,
    document: doc.value.document,
    locate: doc.value.locate,
  });
  if (!loaded.ok) return { ok: false, problems: loaded.errors };
  warnings.push(...loaded.warnings);
  return { ok: true, value: loaded.value.requestInfo };
}

/** The mocked cluster of a Context file. */
export interface TestContext {
  /** `spec.resources`: objects CEL's `resource.Get` / `resource.List` find. */
  resources: KubeObject[];
  /** `spec.images`: image metadata CEL's `image.GetMetadata` answers, by `image`. */
  images: Array<{ [key: string]: JsonValue }>;
}

/**
 * Loads a `cli.kyverno.io/v1alpha1` Context file: the objects of `spec.resources` and the image
 * metadata of `spec.images`, which CEL's libraries read in `kyverno test`.
 */
export function loadContextSource(source: SourceFile, warnings: Warnings): InputResult<TestContext> {
  const doc = single(source, "context", warnings);
  if (!doc.ok) return doc;
  const value = doc.value.value;
  const problem = (path: string, message: string): InputResult<TestContext> => ({
    ok: false,
    problems: [
      { code: "invalid-structure", file: doc.value.file, document: doc.value.document, path, message },
    ],
  });
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return problem("", "expected a Context object");
  if (value.kind !== "Context")
    return problem("kind", `expected kind Context, got ${JSON.stringify(value.kind ?? null)}`);
  const spec = value.spec;
  if (spec === undefined || spec === null) return { ok: true, value: { resources: [], images: [] } };
  if (typeof spec !== "object" || Array.isArray(spec)) return problem("spec", "expected an object");
  const resources = spec.resources ?? [];
  if (!Array.isArray(resources)) return problem("spec.resources", "expected a list of objects");
  const out: KubeObject[] = [];
  for (const [i, r] of resources.entries()) {
    if (typeof r !== "object" || r === null || Array.isArray(r) || typeof r.kind !== "string")
      return problem(`spec.resources[${i}]`, "expected a Kubernetes object with a kind");
    out.push(r as KubeObject);
  }
  const images = spec.images ?? [];
  if (!Array.isArray(images)) return problem("spec.images", "expected a list of image metadata");
  const metadata: Array<{ [key: string]: JsonValue }> = [];
  for (const [i, m] of images.entries()) {
    if (typeof m !== "object" || m === null || Array.isArray(m) || typeof m.image !== "string")
      return problem(`spec.images[${i}]`, "expected an object with an image reference");
    metadata.push(m);
  }
  return { ok: true, value: { resources: out, images: metadata } };
}
