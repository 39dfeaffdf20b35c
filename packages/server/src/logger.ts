import { pino } from "pino";

/**
 * The structured logger the server writes to: a subset of pino's API, so a pino logger can be passed
 * as is and tests can pass a recorder. Every line about a request carries its `uid`.
 */
export interface Logger {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** A logger that drops everything; the default when none is injected. */
export function silentLogger(): Logger {
  const drop = (): void => {};
  return { debug: drop, info: drop, warn: drop, error: drop };
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
