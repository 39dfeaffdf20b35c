/** A container's captured output: the current instance and the previous one (`kubectl logs --previous`). */

/** Bytes of output kept per container instance (older output is dropped from the front). */
const MAX_BYTES = 2 * 1024 * 1024;

/** The output of one container of one Pod. */
export interface ContainerLog {
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  append(chunk: Buffer): void;
  /** Starts a new instance: the current output becomes the previous. */
  restart(): void;
  current(): string;
  previous(): string | undefined;
  /** Every instance's output, oldest first (for test failure messages and log scans). */
  all(): string;
}

/** Creates the log of one container. */
export function createContainerLog(namespace: string, pod: string, container: string): ContainerLog {
  let chunks: Buffer[] = [];
  let size = 0;
  let previous: string | undefined;
  const history: string[] = [];
  const trim = (): void => {
    while (size > MAX_BYTES && chunks.length > 1) size -= chunks.shift()?.length ?? 0;
  };
  return {
    namespace,
    pod,
    container,
    append(chunk) {
      chunks.push(chunk);
      size += chunk.length;
      trim();
    },
    restart() {
      previous = Buffer.concat(chunks).toString("utf8");
      history.push(previous);
      chunks = [];
      size = 0;
    },
    current: () => Buffer.concat(chunks).toString("utf8"),
    previous: () => previous,
    all: () => [...history, Buffer.concat(chunks).toString("utf8")].join(""),
  };
}
