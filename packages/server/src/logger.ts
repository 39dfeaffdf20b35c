import { type Logger, silentLogger as silent } from "@kyverno-ts/api";
import { pino } from "pino";

/**
 * The structured logger the server writes to (`@kyverno-ts/api`'s, shared by every package): a subset
 * of pino's API, so a pino logger can be passed as is and tests can pass a recorder. Every line about
 * a request carries its `uid`.
 */
export type { Logger };

/** A logger that drops everything; the default when none is injected (a copy of `@kyverno-ts/api`'s `silentLogger`, which callers may spy on). */
export function silentLogger(): Logger {
  return { ...silent };
}

/** Log levels accepted by `createJsonLogger`. */
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

/**
 * A pino logger writing one JSON object per line to `stream` (stderr for the commands, so stdout
 * stays for human-readable output).
 */
export function createJsonLogger(options: {
  stream: { write(text: string): unknown };
  level?: LogLevel;
}): Logger {
  const stream = { write: (text: string) => void options.stream.write(text) };
  return pino({ level: options.level ?? "info", base: { component: "admission-controller" } }, stream);
}
