/**
 * Time-sliced scans: evaluation runs on the event loop that answers the health probes, serves
 * `/metrics` and takes watch events, so a scan gives the loop back (a turn of `setImmediate`, after
 * pending I/O and timers) once it has held it for a slice. Shared by every worker of a term, and by the
 * loops that queue a full scan, so that no run of synchronous work between two yields is longer than a
 * slice plus one step.
 */

/** Gives the event loop a turn; see `createScanSlicer`. */
export interface ScanSlicer {
  /** Resolves at once while the current slice lasts; otherwise yields one turn and starts a new slice. */
  pause(): Promise<void>;
  /**
   * Whether `pause` would yield now (the slice is over): a caller that pauses often awaits `pause` only
   * then, instead of a resolved promise per step.
   */
  due(): boolean;
  /** How many times it yielded (for tests and logs). */
  readonly yields: number;
}

/** Options of `createScanSlicer`. */
export interface ScanSlicerOptions {
  /** Monotonic milliseconds. */
  monotonic: () => number;
  /** The longest run of work between two yields, in ms (default `DEFAULT_SLICE_MS`; 0: yield at every pause). */
  sliceMs?: number;
  /** Yields one turn of the event loop (default: a `setImmediate`); tests inject one that counts. */
  yieldTurn?: () => Promise<void>;
}

/** The longest run of scan work between two yields to the event loop, by default. */
export const DEFAULT_SLICE_MS = 10;

/** Lets timers and I/O (probes, scrapes, watch events) run: resolves in the event loop's check phase. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Creates a slicer; its first slice starts now. */
export function createScanSlicer(options: ScanSlicerOptions): ScanSlicer {
  const { monotonic } = options;
  const sliceMs = options.sliceMs ?? DEFAULT_SLICE_MS;
  const yieldTurn = options.yieldTurn ?? nextTurn;
  let sliceStart = monotonic();
  let yields = 0;
  const due = (): boolean => sliceMs <= 0 || monotonic() - sliceStart >= sliceMs;
  return {
    async pause() {
      if (!due()) return;
      yields++;
      await yieldTurn();
      sliceStart = monotonic();
    },
    due,
    get yields() {
      return yields;
    },
  };
}

/**
 * Runs `step` for every item, pausing on `slicer` between items (every `every` items, so a cheap step
 * does not read the clock each time).
 */
export async function forEachSliced<T>(
  items: Iterable<T>,
  slicer: ScanSlicer,
  step: (item: T) => void,
  every = 256,
): Promise<void> {
  let n = 0;
  for (const item of items) {
    step(item);
    if (++n % every === 0) await slicer.pause();
  }
}
