/**
 * Log lines in upstream Kyverno's shape (zap behind logr): `--loggingFormat=json` writes one object
 * per line with `level`, `ts`, `logger`, `msg` and the fields; `text` (upstream's default) writes zap's
 * console layout, tab-separated: `2024-05-06T10:00:00Z	INFO	admission-controller	message	{"key": "value"}`.
 * `-v` is logr's verbosity: errors, warnings and info lines (V(0)) always show, debug lines are V(4)
 * and show from `-v=4` (zap prints them as `Level(-4)`). The timestamp follows `--loggingtsFormat`.
 */
import type { Logger, LogLevel } from "../logger.js";

/** `--loggingFormat`. */
export type LogFormat = "text" | "json";

/** `--loggingtsFormat` (case-insensitive, as upstream). */
export type TimestampFormat = "rfc3339" | "iso8601" | "rfc3339nano" | "millis" | "nanos";

/** Settings of `createControllerLogger`. */
export interface LogSettings {
  format: LogFormat;
  /** `-v`: debug lines from 4. */
  verbosity: number;
  /** `--log-level` (kyverno-ts): wins over `verbosity` when set. */
  level?: LogLevel;
  timestampFormat: TimestampFormat;
}

/** Options of `createControllerLogger`. */
export interface ControllerLoggerOptions extends LogSettings {
  stream: { write(text: string): unknown };
  /** The `logger` name of every line (upstream: the component, e.g. `webhooks.server`). */
  name: string;
  /** Epoch milliseconds (the injected clock's `now`). */
  now: () => number;
}

/** The verbosity of debug lines. */
export const DEBUG_VERBOSITY = 4;

const TIMESTAMP_FORMATS: Readonly<Record<string, TimestampFormat>> = {
  rfc3339: "rfc3339",
  iso8601: "iso8601",
  rfc3339nano: "rfc3339nano",
  millis: "millis",
  nanos: "nanos",
};

/** Reads `--loggingFormat`, `--loggingtsFormat`, `-v` and `--log-level`; a message names a bad value. */
export function logSettings(values: {
  loggingFormat: string;
  loggingtsFormat: string;
  v: number;
  logLevel: string | undefined;
}): { ok: true; settings: LogSettings } | { ok: false; message: string } {
  if (values.loggingFormat !== "text" && values.loggingFormat !== "json")
    return {
      ok: false,
      message: `invalid value "${values.loggingFormat}" for flag -loggingFormat: text or json`,
    };
  const ts = TIMESTAMP_FORMATS[values.loggingtsFormat.toLowerCase()];
  if (ts === undefined)
    return {
      ok: false,
      message: `invalid value "${values.loggingtsFormat}" for flag -loggingtsFormat: RFC3339, iso8601, rfc3339nano, millis or nanos`,
    };
  if (values.v < 0) return { ok: false, message: `invalid value "${values.v}" for flag -v: at least 0` };
  const levels: readonly string[] = ["debug", "info", "warn", "error", "silent"];
  if (values.logLevel !== undefined && values.logLevel !== "" && !levels.includes(values.logLevel))
    return { ok: false, message: `--log-level must be one of ${levels.join(", ")}` };
  return {
    ok: true,
    settings: {
      format: values.loggingFormat,
      verbosity: values.v,
      ...(values.logLevel ? { level: values.logLevel as LogLevel } : {}),
      timestampFormat: ts,
    },
  };
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** The timestamp of a line: a string, or a number for the epoch formats. */
export function timestamp(ms: number, format: TimestampFormat): string | number {
  const d = new Date(ms);
  const base = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  const millis = d.getUTCMilliseconds();
  switch (format) {
    case "rfc3339":
      return `${base}Z`;
    case "iso8601":
      return `${base}.${pad(millis, 3)}Z`;
    case "rfc3339nano":
      return millis === 0 ? `${base}Z` : `${base}.${pad(millis, 3).replace(/0+$/, "")}Z`;
    case "millis":
      return ms;
    case "nanos":
      return ms * 1e6;
  }
}

type Severity = "debug" | "info" | "warn" | "error";
const RANK: Readonly<Record<LogLevel, number>> = { debug: 0, info: 1, warn: 2, error: 3, silent: 4 };

function enabled(settings: LogSettings, severity: Severity): boolean {
  if (settings.level !== undefined) return RANK[severity] >= RANK[settings.level];
  return severity !== "debug" || settings.verbosity >= DEBUG_VERBOSITY;
}

function levelText(severity: Severity, format: LogFormat): string {
  const text = severity === "debug" ? `Level(-${DEBUG_VERBOSITY})` : severity;
  return format === "text" ? text.toUpperCase() : text;
}

/** Errors as their message (zap's `error` field), everything else as is. */
function plain(fields: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields))
    out[key] = value instanceof Error ? value.message : typeof value === "bigint" ? value.toString() : value;
  return out;
}

/** zap's console layout of the fields: `{"key": "value", "n": 1}`. */
function consoleFields(fields: Record<string, unknown>): string {
  const entries = Object.entries(fields).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return "";
  return `\t{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v) ?? "null"}`).join(", ")}}`;
}

/** A `Logger` writing upstream-shaped lines to `stream`. */
export function createControllerLogger(options: ControllerLoggerOptions): Logger {
  const write = (severity: Severity) => (fields: object, message: string) => {
    if (!enabled(options, severity)) return;
    const ts = timestamp(options.now(), options.timestampFormat);
    const data = plain(fields);
    const level = levelText(severity, options.format);
    options.stream.write(
      options.format === "json"
        ? `${JSON.stringify({ level, ts, logger: options.name, msg: message, ...data })}\n`
        : `${ts}\t${level}\t${options.name}\t${message}${consoleFields(data)}\n`,
    );
  };
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}
