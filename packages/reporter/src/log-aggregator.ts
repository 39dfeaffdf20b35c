/**
 * Rate-limited, aggregated log lines for events that can repeat thousands of times a second (a
 * notification target or Redis that cannot be reached): the first event of a kind is logged at once,
 * the following ones in the next `windowMs` are only counted, and when the window ends one summary
 * line says how many there were ("dropped 5,000 notifications to slack in the last 30 s"). While the
 * events go on, that is one line per window; after a quiet window the next event is logged at once.
 */
import type { Clock } from "@kyverno-ts/api";
import type { LogFields, Logger } from "./logger.js";

/** Options of {@link createLogAggregator}. */
export interface LogAggregatorOptions {
  logger: Logger;
  clock: Clock;
  /** Length of a window; default 30 s. */
  windowMs?: number;
}

/** One kind of repeated event. */
export interface AggregatedEvent {
  /** Events with the same key are counted together (e.g. `slack\u0000dropped`). */
  key: string;
  level: "warn" | "error";
  /** Fields of the line (the last event's fields go on the summary). */
  fields: LogFields;
  /** The message of the first, immediately logged event. */
  message: string;
  /** The summary of `count` events (the first excluded) over `seconds`. */
  summary: (count: string, seconds: number) => string;
  /** How many events this one stands for (results of a dropped batch); default 1. */
  count?: number;
}

/** The aggregator. */
export interface LogAggregator {
  log(event: AggregatedEvent): void;
  /** Logs the pending summaries now and ends every window (shutdown). */
  flush(): void;
}

interface Window {
  cancel: () => void;
  count: number;
  last: AggregatedEvent;
}

/** Creates a {@link LogAggregator}. */
export function createLogAggregator(options: LogAggregatorOptions): LogAggregator {
  const { logger, clock } = options;
  const windowMs = options.windowMs ?? 30_000;
  const windows = new Map<string, Window>();
  const write = (level: "warn" | "error", fields: LogFields, message: string) => {
    if (level === "error") logger.error(fields, message);
    else logger.warn(fields, message);
  };
  const summarize = (window: Window) => {
    const seconds = Math.round(windowMs / 1000);
    const count = window.count.toLocaleString("en-US");
    write(
      window.last.level,
      { ...window.last.fields, suppressed: window.count },
      window.last.summary(count, seconds),
    );
  };
  const open = (key: string, event: AggregatedEvent) => {
    const window: Window = {
      count: 0,
      last: event,
      cancel: clock.after(windowMs, () => {
        if (window.count === 0) {
          windows.delete(key);
          return;
        }
        summarize(window);
        open(key, window.last); // the events go on: count the next window too
      }),
    };
    windows.set(key, window);
  };
  return {
    log(event) {
      const window = windows.get(event.key);
      if (window) {
        window.count += event.count ?? 1;
        window.last = event;
        return;
      }
      write(event.level, event.fields, event.message);
      open(event.key, event);
    },
    flush() {
      for (const window of windows.values()) {
        window.cancel();
        if (window.count > 0) summarize(window);
      }
      windows.clear();
    },
  };
}
