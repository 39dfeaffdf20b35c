/**
 * `loadReporterConfig`: reads the YAML (or JSON) configuration file, applies environment overrides
 * and validates it. Errors name the key and, when the value comes from the file, its line.
 */
import { readFileSync } from "node:fs";
import { parseDocuments } from "@kyverno-ts/api";
import { applyEnvOverrides } from "./env.js";
import { type ParsedConfig, parseReporterConfig } from "./parse.js";
import { ConfigError } from "./read.js";

/** Options of {@link loadReporterConfig}. */
export interface LoadConfigOptions {
  /** The configuration file; without one, defaults and environment overrides only. */
  file?: string;
  /** Environment for overrides (default none). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Default identity for leader election. */
  hostname?: string;
}

/** The outcome of {@link loadReporterConfig}: the config, warnings, and the keys set from the environment. */
export interface LoadedConfig extends ParsedConfig {
  fromEnv: string[];
}

/** Splits `a.b[2].c` into `["a", "b", 2, "c"]`. */
function pathSegments(key: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const part of key.split(".")) {
    const m = /^([^[]*)((?:\[\d+\])*)$/.exec(part);
    if (m === null) {
      out.push(part);
      continue;
    }
    if (m[1]) out.push(m[1]);
    for (const index of (m[2] ?? "").matchAll(/\[(\d+)\]/g)) out.push(Number(index[1]));
  }
  return out;
}

/**
 * Loads and validates the configuration. Throws a `ConfigError` (code `CONFIG_INVALID`) for an
 * unreadable file, a YAML syntax error or an invalid value; the message starts with the key.
 */
export function loadReporterConfig(options: LoadConfigOptions = {}): LoadedConfig {
  let raw: unknown;
  let locate: ((path: readonly (string | number)[]) => number | undefined) | undefined;
  const file = options.file;
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      throw new ConfigError("--config", `cannot read ${file}: ${(error as Error).message}`);
    }
    const parsed = parseDocuments(text, file);
    const syntax = parsed.errors[0];
    if (syntax !== undefined) {
      const where = syntax.line === undefined ? file : `${file}:${syntax.line}`;
      throw new ConfigError(syntax.path || "(file)", `${where}: ${syntax.message}`);
    }
    if (parsed.documents.length > 1) {
      throw new ConfigError(
        "(file)",
        `${file}: expected one YAML document, found ${parsed.documents.length}`,
      );
    }
    raw = parsed.documents[0]?.value;
    locate = parsed.documents[0]?.locate;
  }
  const { raw: merged, overridden } = applyEnvOverrides(raw, options.env ?? {});
  try {
    const parsed = parseReporterConfig(merged, options.hostname ? { hostname: options.hostname } : {});
    return { ...parsed, fromEnv: overridden };
  } catch (error) {
    if (!(error instanceof ConfigError) || file === undefined || overridden.includes(error.key)) throw error;
    const line = locate?.(pathSegments(error.key));
    if (line === undefined) throw error;
    throw new ConfigError(error.key, `${error.reason} (${file}:${line})`);
  }
}
