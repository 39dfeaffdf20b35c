/**
 * The logging interface the reporter writes to: `@kyverno-ts/api`'s `Logger`, shared with the server.
 * pino loggers satisfy it; tests pass {@link silentLogger} or a recording logger.
 */
export type { Logger } from "@kyverno-ts/api";
export { silentLogger } from "@kyverno-ts/api";

/** Structured fields attached to a log line. */
export type LogFields = Record<string, unknown>;
