/**
 * The process logger from `logging`: JSON lines through pino (`encoding: json`) or one readable line
 * per entry (`console`, the default), at the zap level of `logLevel` (-1 debug … 2 error).
 */
import { type Clock, systemClock } from "@kyverno-ts/api";
import { pino } from "pino";
import type { LoggingConfig } from "../config/types.js";
import type { LogFields, Logger } from "../logger.js";

/** Where log lines go (`process.stderr`, a test buffer). */
export interface LogOutput {
  write(text: string): unknown;
}

const LEVELS = ["debug", "info", "warn", "error"] as const;
type Level = (typeof LEVELS)[number];

function levelOf(logLevel: number): Level {
  return LEVELS[Math.min(3, Math.max(0, logLevel + 1))] as Level;
}

function formatValue(value: unknown): string {
  if (typeof value === "string") return /[\s"=]/.test(value) || value === "" ? JSON.stringify(value) : value;
  if (value instanceof Error) return JSON.stringify(value.message);
  return JSON.stringify(value) ?? String(value);
}

/**
 * Creates the logger for a `logging` section, writing to `output`; `clock` stamps the console lines
 * (pino stamps its JSON lines itself).
 */
export function createReporterLogger(
  config: Pick<LoggingConfig, "logLevel" | "encoding">,
  output: LogOutput,
  clock: Clock = systemClock,
): Logger {
  const level = levelOf(config.logLevel);
  if (config.encoding === "json") {
    const log = pino(
      { level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime },
      {
        write: (line: string) => output.write(line),
      },
    );
    return {
      debug: (fields, message) => log.debug(fields, message),
      info: (fields, message) => log.info(fields, message),
      warn: (fields, message) => log.warn(fields, message),
      error: (fields, message) => log.error(fields, message),
    };
  }
  const min = LEVELS.indexOf(level);
  const line = (at: Level) => (fields: LogFields, message: string) => {
    if (LEVELS.indexOf(at) < min) return;
    const extra = Object.entries(fields)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${formatValue(v)}`)
      .join(" ");
    output.write(
      `${new Date(clock.now()).toISOString()} ${at.toUpperCase().padEnd(5)} ${message}${extra ? ` ${extra}` : ""}\n`,
    );
  };
  return { debug: line("debug"), info: line("info"), warn: line("warn"), error: line("error") };
}
