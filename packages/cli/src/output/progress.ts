import type { CliIo } from "../io.js";
import { showsProgress } from "../io.js";

/** A transient status line on stderr; a no-op when stderr is not a terminal or in CI. */
export interface Progress {
  /** Redraws the line with `done/total` and a label. */
  update(done: number, total: number, label: string): void;
  /** Erases the line. */
  clear(): void;
}

/** Creates the progress line for `io`; draws at most every 50 ms to keep redraws cheap. */
export function createProgress(io: CliIo, now: () => number): Progress {
  if (!showsProgress(io)) return { update() {}, clear() {} };
  let drawn = false;
  let last = Number.NEGATIVE_INFINITY;
  return {
    update(done, total, label) {
      const t = now();
      if (done < total && t - last < 50) return;
      last = t;
      const columns = Number(io.env.COLUMNS) > 20 ? Number(io.env.COLUMNS) : 100;
      const text = `[${done}/${total}] ${label}`.slice(0, columns - 1);
      io.stderr.write(`\r\x1b[2K${text}`);
      drawn = true;
    },
    clear() {
      if (drawn) io.stderr.write("\r\x1b[2K");
      drawn = false;
    },
  };
}

/** Formats a duration in milliseconds as upstream-style seconds, e.g. `3.2s` or `0.04s`. */
export function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return s >= 10 ? `${s.toFixed(1)}s` : `${s.toFixed(2)}s`;
}
