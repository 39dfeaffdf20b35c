import {
  type Document,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseAllDocuments,
  type ScalarTag,
  type Tags,
  type YAMLError,
} from "yaml";
import type { JsonValue } from "../policy/json.js";
import { formatPath, type LoadError, type LoadErrorCode, type PathSegment } from "./errors.js";

/** One non-empty document of a YAML or JSON file. */
export interface ParsedDocument {
  /** 0-based index of the document in the file, counting empty documents, so it matches what the user sees. */
  document: number;
  value: JsonValue;
  /** 1-based line where the document starts. */
  line: number;
  /** 1-based line of a field path inside this document (or of its closest existing parent). */
  locate: (path: readonly PathSegment[]) => number | undefined;
}

/** The documents of a file plus every syntax problem; documents without errors are kept even when others fail. */
export interface ParsedFile {
  documents: ParsedDocument[];
  errors: LoadError[];
  warnings: LoadError[];
}

// Booleans as YAML 1.2 (only true/false): `yes`/`on`/`y` stay strings, as Kubernetes keeps them in string fields.
const bool: ScalarTag = {
  identify: (v) => typeof v === "boolean",
  default: true,
  tag: "tag:yaml.org,2002:bool",
  test: /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/,
  resolve: (s) => s[0] === "t" || s[0] === "T",
};

// `0o17`, which Go's ParseInt (base 0) accepts, as sigs.k8s.io/yaml does.
const octal12: ScalarTag = {
  identify: (v) => typeof v === "number",
  default: true,
  tag: "tag:yaml.org,2002:int",
  test: /^[-+]?0o[0-7_]+$/,
  resolve: (s) => {
    const n = Number.parseInt(s.replace(/^[-+]?0o|_/g, ""), 8);
    return s.startsWith("-") ? -n : n;
  },
};

const DROPPED = new Set(["TIME"]);
const DROPPED_TAGS = new Set(["tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:bool"]);

/**
 * YAML 1.1 scalars as go-yaml v2 (used by sigs.k8s.io/yaml) resolves them: `0755` is octal, `1_000`
 * is 1000, merge keys work; but timestamps and `12:30` stay strings, and only true/false are booleans.
 */
function customTags(tags: Tags): Tags {
  const kept = tags.filter((t) => {
    if (typeof t === "string") return true;
    if (DROPPED_TAGS.has(t.tag)) return false;
    return !("format" in t && t.format !== undefined && DROPPED.has(t.format));
  });
  return [bool, octal12, ...kept];
}

const OPTIONS = { schema: "yaml-1.1", customTags, merge: true, prettyErrors: true } as const;

/**
 * Parses a multi-document YAML (or JSON) file into JSON values, skipping empty documents.
 * Syntax errors become `LoadError`s with the file, the document index and the line; a broken
 * document does not hide the others. Duplicate keys are warnings (the last value wins).
 */
export function parseDocuments(text: string, file: string): ParsedFile {
  return parseJson(text, file) ?? parseYaml(text, file);
}

function parseYaml(text: string, file: string): ParsedFile {
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { ...OPTIONS, lineCounter: lines });
  const out: ParsedFile = { documents: [], errors: [], warnings: [] };
  if (!Array.isArray(docs)) return out;
  const lineAt = (offset: number): number => lines.linePos(offset).line;
  docs.forEach((doc, index) => {
    const problem = (
      code: LoadErrorCode,
      message: string,
      line: number | undefined,
      path = "",
    ): LoadError => {
      const e: LoadError = { code, file, document: index, path, message };
      if (line !== undefined) e.line = line;
      return e;
    };
    const fromYaml = (e: YAMLError, code: LoadErrorCode): LoadError =>
      problem(code, firstLine(e.message), e.linePos?.[0].line ?? lineAt(e.pos[0]));
    // One mistake often makes the parser report several errors on the same spot (a tab in the
    // indentation is also "implicit map keys need to be followed by map values"): the first is the
    // cause, the rest are only counted.
    const syntax = doc.errors.filter((e) => e.code !== "DUPLICATE_KEY");
    for (const e of doc.errors)
      if (e.code === "DUPLICATE_KEY")
        out.warnings.push({ ...fromYaml(e, "duplicate-key"), message: "duplicate key; the last value wins" });
    for (const w of doc.warnings) out.warnings.push(fromYaml(w, "yaml-syntax"));
    const first = syntax[0];
    if (first !== undefined) {
      const error = fromYaml(first, "yaml-syntax");
      const more = syntax.length - 1;
      if (more > 0)
        error.message += ` (${more} more syntax ${more === 1 ? "error" : "errors"} after it in this document)`;
      out.errors.push(error);
      return;
    }
    const locate = (path: readonly PathSegment[]) => locateIn(doc, path, lineAt);
    let js: unknown;
    try {
      js = doc.toJS(); // throws on alias bombs (too many alias expansions)
    } catch (e) {
      out.errors.push(
        problem("yaml-syntax", e instanceof Error ? e.message : String(e), lineAt(doc.range[0])),
      );
      return;
    }
    const converted = toJson(js, []);
    if (!converted.ok) {
      out.errors.push(
        problem("not-json", converted.message, locate(converted.path), formatPath(converted.path)),
      );
      return;
    }
    if (converted.value === null) return;
    const start = doc.contents?.range[0] ?? doc.range[0];
    out.documents.push({ document: index, value: converted.value, line: lineAt(start), locate });
  });
  return out;
}

function firstLine(message: string): string {
  const i = message.indexOf("\n");
  return (i < 0 ? message : message.slice(0, i)).replace(/ at line \d+, column \d+:?$/, "");
}

function parseJson(text: string, file: string): ParsedFile | undefined {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) return undefined;
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch {
    return undefined; // flow-style YAML, or broken JSON: the YAML parser reports with a line
  }
  if (value === null) return { documents: [], errors: [], warnings: [] };
  let yaml: ParsedFile | undefined;
  // Lines are only needed for errors: parse again as YAML lazily, on first use.
  const locate = (path: readonly PathSegment[]): number | undefined => {
    yaml ??= parseYaml(text, file);
    return yaml.documents[0]?.locate(path);
  };
  return { documents: [{ document: 0, value, line: 1, locate }], errors: [], warnings: [] };
}

function locateIn(
  doc: Document,
  path: readonly PathSegment[],
  lineAt: (offset: number) => number,
): number | undefined {
  let node: unknown = doc.contents;
  let at: Node | undefined = isNodeLike(node) ? node : undefined;
  for (const seg of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => String(isScalar(p.key) ? p.key.value : p.key) === String(seg));
      if (pair === undefined) break;
      if (isNodeLike(pair.key)) at = pair.key; // a field's line is the line of its key
      node = pair.value;
    } else if (isSeq(node) && typeof seg === "number" && isNodeLike(node.items[seg])) {
      node = node.items[seg];
      at = node as Node;
    } else break;
  }
  const offset = at?.range?.[0];
  return offset === undefined ? undefined : lineAt(offset);
}

function isNodeLike(v: unknown): v is Node {
  return typeof v === "object" && v !== null && "range" in v;
}

type Converted = { ok: true; value: JsonValue } | { ok: false; path: PathSegment[]; message: string };

/** Checks that a value from `toJS` is JSON; converts `!!binary` to a string as go-yaml does. */
function toJson(v: unknown, path: PathSegment[], open = new Set<object>()): Converted {
  // An anchor used inside itself (`&a [*a]`) makes a cyclic value: refuse it instead of recursing forever.
  if (typeof v === "object" && v !== null && open.has(v))
    return { ok: false, path, message: "a recursive alias (an anchor used inside itself) has no JSON form" };
  if (v === null || typeof v === "string" || typeof v === "boolean") return { ok: true, value: v };
  if (typeof v === "number") {
    return Number.isFinite(v)
      ? { ok: true, value: v }
      : { ok: false, path, message: `${v} is not a valid JSON number` };
  }
  if (v instanceof Uint8Array) return { ok: true, value: new TextDecoder().decode(v) };
  if (Array.isArray(v)) {
    const out: JsonValue[] = [];
    open.add(v);
    for (let i = 0; i < v.length; i++) {
      const item = toJson(v[i], [...path, i], open);
      if (!item.ok) return item;
      out.push(item.value);
    }
    open.delete(v);
    return { ok: true, value: out };
  }
  if (typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
    const out: { [key: string]: JsonValue } = {};
    open.add(v);
    for (const [key, item] of Object.entries(v)) {
      const c = toJson(item, [...path, key], open);
      if (!c.ok) return c;
      Object.defineProperty(out, key, {
        value: c.value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    open.delete(v);
    return { ok: true, value: out };
  }
  return { ok: false, path, message: `a ${describe(v)} value has no JSON form` };
}

function describe(v: unknown): string {
  if (v instanceof Set) return "!!set";
  if (v instanceof Map) return "!!omap";
  if (v instanceof Date) return "!!timestamp";
  return typeof v;
}
