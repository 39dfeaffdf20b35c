/**
 * Load errors: every problem found while reading YAML or validating it names the file, the
 * document inside the file, the field path and, when known, the line.
 */

/**
 * Stable code of a load problem; tell problems apart by code, never by message text.
 * - `yaml-syntax`: the text is not valid YAML/JSON.
 * - `duplicate-key`: a mapping repeats a key (the last value wins, as upstream).
 * - `not-json`: a YAML value has no JSON form (`.inf`, `.nan`, `!!set`, ...).
 * - `unknown-field`: a field the schema does not define (usually a typo).
 * - `wrong-type`: a value of the wrong JSON type.
 * - `missing-field`: a required field is absent.
 * - `invalid-value`: a value outside the allowed set or format.
 * - `invalid-structure`: a combination upstream rejects (two rule types, any and all together, ...).
 * - `unsupported-kind`: the document is not of a kind/apiVersion the loader accepts.
 * - `deprecated`: a deprecated field or form (always a warning).
 */
export type LoadErrorCode =
  | "yaml-syntax"
  | "duplicate-key"
  | "not-json"
  | "unknown-field"
  | "wrong-type"
  | "missing-field"
  | "invalid-value"
  | "invalid-structure"
  | "unsupported-kind"
  | "deprecated";

/** One problem found while loading a file; used both for errors and for warnings. */
export interface LoadError {
  code: LoadErrorCode;
  /** The file as given by the caller (shown to the user as is). */
  file: string;
  /** 0-based index of the YAML document inside the file; absent for file-level problems. */
  document?: number;
  /** Field path inside the document, e.g. `spec.rules[0].validate.pattern`; empty for the whole document. */
  path: string;
  /** 1-based line, when the position is known. */
  line?: number;
  message: string;
}

/** Result of a loader: the typed value plus warnings, or every error found (never just the first). */
export type Loaded<T> = { ok: true; value: T; warnings: LoadError[] } | { ok: false; errors: LoadError[] };

/** One segment of a field path: an object key or an array index. */
export type PathSegment = string | number;

/**
 * Where a value being loaded came from. `locate` maps a field path to a 1-based line; pass the one
 * from `parseDocuments` so errors carry lines, or omit it for values that did not come from text.
 */
export interface Where {
  file: string;
  document?: number;
  locate?: (path: readonly PathSegment[]) => number | undefined;
}

/** Formats a path as users write it: `spec.rules[0].validate`, with odd keys quoted (`metadata.labels["a.b/c"]`). */
export function formatPath(path: readonly PathSegment[]): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(seg)) out += out === "" ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/**
 * Formats one problem as a single line a user can act on, e.g.
 * `policies/bad.yaml:12 (document 2): spec.rules[0].validate: unknown field "patern"`.
 * Documents are shown 1-based; the line is omitted when unknown.
 */
export function formatLoadError(e: LoadError): string {
  const file = e.line === undefined ? e.file : `${e.file}:${e.line}`;
  const doc = e.document === undefined ? "" : ` (document ${e.document + 1})`;
  const path = e.path === "" ? "" : `${e.path}: `;
  return `${file}${doc}: ${path}${e.message}`;
}

/** A problem found by a schema or a check, before it is tied to a file. */
export interface Issue {
  code: LoadErrorCode;
  path: readonly PathSegment[];
  message: string;
  /** Warnings do not fail a load. Defaults to error. */
  warning?: boolean;
  /** The key the issue is about when `path` is its parent object (an unknown field): used to find the line. */
  key?: string;
}

/** Ties issues to a file and document, splitting them into errors and warnings. */
export function toLoadErrors(
  issues: readonly Issue[],
  where: Where,
): { errors: LoadError[]; warnings: LoadError[] } {
  const errors: LoadError[] = [];
  const warnings: LoadError[] = [];
  for (const issue of issues) {
    const e: LoadError = {
      code: issue.code,
      file: where.file,
      path: formatPath(issue.path),
      message: issue.message,
    };
    if (where.document !== undefined) e.document = where.document;
    const line = where.locate?.(issue.key === undefined ? issue.path : [...issue.path, issue.key]);
    if (line !== undefined) e.line = line;
    (issue.warning === true ? warnings : errors).push(e);
  }
  return { errors, warnings };
}
