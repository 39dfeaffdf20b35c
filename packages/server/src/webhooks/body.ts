/** Reading a request body with a hard size bound, keeping only the head of an oversized one. */
import type { Readable } from "node:stream";

/** Upstream's AdmissionReview size bound: 3 MiB. */
export const DEFAULT_BODY_LIMIT = 3 * 1024 * 1024;

/** How much of an oversized body is kept, to read the request uid from. */
const HEAD_BYTES = 4096;

/** A body read whole, or the head of one that went past the limit (the rest is discarded unread). */
export type BoundedBody = { ok: true; text: string } | { ok: false; head: string; received: number };

/**
 * Reads `stream` up to `limit` bytes and calls `done` once. Past the limit it stops buffering, answers
 * with the first bytes only, and lets the remaining data drain into nothing, so memory stays bounded
 * whatever the client sends. A callback rather than a promise: this runs for every webhook request.
 */
export function readBoundedBody(
  stream: Readable,
  limit: number,
  done: (error: Error | null, body?: BoundedBody) => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const onData = (chunk: Buffer): void => {
    size += chunk.length;
    if (size > limit) {
      const head = Buffer.concat([...chunks, chunk])
        .subarray(0, HEAD_BYTES)
        .toString("utf8");
      chunks.length = 0;
      stream.off("data", onData);
      stream.off("end", onEnd);
      stream.off("error", onError);
      stream.on("error", () => {});
      stream.resume();
      done(null, { ok: false, head, received: size });
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = (): void => {
    const text =
      chunks.length === 1
        ? (chunks[0] as Buffer).toString("utf8")
        : Buffer.concat(chunks, size).toString("utf8");
    done(null, { ok: true, text });
  };
  const onError = (error: Error): void => done(error);
  stream.on("data", onData);
  stream.on("end", onEnd);
  stream.on("error", onError);
}
