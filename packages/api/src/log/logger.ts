/**
 * The structured logger every package writes to, defined once: pino's `(fields, message)` call shape,
 * so a pino logger can be passed as is, and tests pass {@link silentLogger} or a recorder. Types and a
 * no-op value only; the constructors of real loggers live where they are used (the server's upstream
 * log lines, the reporter's pino logger).
 */

/** A structured logger: one line per call, with its fields. */
export interface Logger {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** A logger that drops everything (the default when none is injected). */
export const silentLogger: Logger = Object.freeze({
  debug() {},
  info() {},
  warn() {},
  error() {},
});
