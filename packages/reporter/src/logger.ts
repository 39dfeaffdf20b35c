/**
 * The logging interface the reporter writes to. pino loggers satisfy it; tests pass
 * {@link silentLogger} or a recording logger.
 */

/** Structured fields attached to a log line. */
export type LogFields = Record<string, unknown>;

/** A structured logger (pino's `(fields, message)` call shape). */
export interface Logger {
  debug(fields: LogFields, message: string): void;
  info(fields: LogFields, message: string): void;
  warn(fields: LogFields, message: string): void;
  error(fields: LogFields, message: string): void;
}

/** A logger that drops everything. */
export const silentLogger: Logger = Object.freeze({
  debug() {},
  info() {},
  warn() {},
  error() {},
});
