/**
 * Typed reading of an untyped configuration tree: every value is checked where it is read, and a
 * wrong one becomes a {@link ConfigError} naming its key (`metrics.mode`, `target.slack.channels[1].webhook`).
 * Scalars are coerced the way environment overrides need (`"true"` → true, `"8080"` → 8080).
 */
import { ReporterError } from "../errors.js";
import type { IncludeExclude } from "../match.js";

/** An invalid configuration value: `key` is the dotted path, `reason` what is wrong with it. */
export class ConfigError extends ReporterError {
  readonly key: string;
  readonly reason: string;

  constructor(key: string, reason: string) {
    super("CONFIG_INVALID", `${key}: ${reason}`);
    this.name = "ConfigError";
    this.key = key;
    this.reason = reason;
  }
}

/** True if `value` is a {@link ConfigError}. */
export function isConfigError(value: unknown): value is ConfigError {
  return value instanceof ConfigError;
}

/** Collects non-fatal findings (unknown keys, ignored sections) while reading. */
export type WarningSink = (key: string, message: string) => void;

/** Reads one mapping of the configuration; each getter validates the key it reads. */
export interface Section {
  /** The dotted path of this mapping (`""` at the root). */
  readonly path: string;
  /** The key's full path. */
  at(key: string): string;
  /** True when the key is present and not null. */
  has(key: string): boolean;
  /** The raw value (marks the key as known). */
  raw(key: string): unknown;
  str(key: string, fallback?: string): string;
  bool(key: string, fallback: boolean): boolean;
  int(key: string, fallback: number, range?: { min?: number; max?: number }): number;
  oneOf<T extends string>(key: string, allowed: readonly T[], fallback: T): T;
  strList(key: string): string[];
  /** A mapping of strings (scalars converted); undefined when absent. */
  strMap(key: string): Record<string, string> | undefined;
  /** `{include, exclude}`; undefined when absent or empty. */
  includeExclude(key: string): IncludeExclude | undefined;
  /** A nested mapping (empty when absent). */
  section(key: string): Section;
  /** A list of mappings. */
  sections(key: string): Section[];
  /** Warns about keys present here but never read (call after reading). */
  warnUnknown(): void;
}

/** Edit distance of two short keys (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = row;
  }
  return previous[b.length] ?? 0;
}

/** The known key a misspelt one most likely meant (at most 2 edits, case aside), if any. */
function closest(key: string, known: ReadonlySet<string>): string | undefined {
  let best: { key: string; d: number } | undefined;
  for (const candidate of known) {
    const d = distance(key.toLowerCase(), candidate.toLowerCase());
    if (d <= Math.min(2, Math.floor(candidate.length / 3)) && (!best || d < best.d))
      best = { key: candidate, d };
  }
  return best?.key;
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  return `a ${typeof value}`;
}

function join(path: string, key: string): string {
  if (path === "") return key;
  return key.startsWith("[") ? `${path}${key}` : `${path}.${key}`;
}

/** Reads `value` (a mapping, or null/undefined for an empty one) at `path`. */
export function readSection(value: unknown, path: string, warn: WarningSink): Section {
  if (value !== undefined && value !== null && (typeof value !== "object" || Array.isArray(value))) {
    throw new ConfigError(path || "(root)", `must be a mapping, not ${kindOf(value)}`);
  }
  const data = (value ?? {}) as Record<string, unknown>;
  const known = new Set<string>();
  const get = (key: string): unknown => {
    known.add(key);
    const v = data[key];
    return v === null ? undefined : v;
  };
  const at = (key: string) => join(path, key);
  const fail = (key: string, reason: string): never => {
    throw new ConfigError(at(key), reason);
  };
  const scalar = (key: string, v: unknown): string => {
    if (typeof v === "string") return v;
    if (typeof v === "number" || typeof v === "boolean") return String(v);
    return fail(key, `must be a string, not ${kindOf(v)}`);
  };
  const toList = (key: string, v: unknown): string[] => {
    if (v === undefined) return [];
    if (!Array.isArray(v)) return fail(key, `must be a list of strings, not ${kindOf(v)}`);
    return v.map((item, i) => {
      if (typeof item === "string" || typeof item === "number") return String(item);
      return fail(`${key}[${i}]`, `must be a string, not ${kindOf(item)}`);
    });
  };
  const self: Section = {
    path,
    at,
    has: (key) => get(key) !== undefined,
    raw: get,
    str(key, fallback = "") {
      const v = get(key);
      return v === undefined ? fallback : scalar(key, v);
    },
    bool(key, fallback) {
      const v = get(key);
      if (v === undefined || v === "") return fallback;
      if (typeof v === "boolean") return v;
      if (v === "true" || v === "false") return v === "true";
      return fail(key, `must be true or false, not ${JSON.stringify(v)}`);
    },
    int(key, fallback, range = {}) {
      const v = get(key);
      if (v === undefined || v === "") return fallback;
      const n =
        typeof v === "number" ? v : typeof v === "string" && /^-?\d+$/.test(v.trim()) ? Number(v) : NaN;
      if (!Number.isInteger(n)) return fail(key, `must be an integer, not ${JSON.stringify(v)}`);
      if (range.min !== undefined && n < range.min) return fail(key, `must be >= ${range.min}, not ${n}`);
      if (range.max !== undefined && n > range.max) return fail(key, `must be <= ${range.max}, not ${n}`);
      return n;
    },
    oneOf(key, allowed, fallback) {
      const v = self.str(key, fallback);
      if (v === "") return fallback;
      const found = allowed.find((a) => a === v);
      if (found === undefined)
        return fail(key, `must be one of ${allowed.join(", ")}, not ${JSON.stringify(v)}`);
      return found;
    },
    strList: (key) => toList(key, get(key)),
    strMap(key) {
      const v = get(key);
      if (v === undefined) return undefined;
      if (typeof v !== "object" || Array.isArray(v)) return fail(key, `must be a mapping, not ${kindOf(v)}`);
      const out: Record<string, string> = {};
      for (const [k, item] of Object.entries(v as Record<string, unknown>)) {
        if (item === null || item === undefined) continue;
        out[k] = scalar(`${key}.${k}`, item);
      }
      return out;
    },
    includeExclude(key) {
      const s = self.section(key);
      const include = s.strList("include");
      const exclude = s.strList("exclude");
      s.warnUnknown();
      if (include.length === 0 && exclude.length === 0) return undefined;
      return { ...(include.length ? { include } : {}), ...(exclude.length ? { exclude } : {}) };
    },
    section: (key) => readSection(get(key), at(key), warn),
    sections(key) {
      const v = get(key);
      if (v === undefined) return [];
      if (!Array.isArray(v)) return fail(key, `must be a list, not ${kindOf(v)}`);
      return v.map((item, i) => readSection(item, at(`${key}[${i}]`), warn));
    },
    warnUnknown() {
      for (const key of Object.keys(data)) {
        if (known.has(key)) continue;
        const near = closest(key, known);
        warn(
          at(key),
          near ? `unknown key; ignored (did you mean ${JSON.stringify(near)}?)` : "unknown key; ignored",
        );
      }
    },
  };
  return self;
}
