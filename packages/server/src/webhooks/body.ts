/** Reading a request body with a hard size bound, keeping only the head of an oversized one. */
import type { Readable } from "node:stream";

/** Upstream's AdmissionReview size bound: 3 MiB. */
export const DEFAULT_BODY_LIMIT = 3 * 1024 * 1024;

/** How much of an oversized body is kept, to read the request uid from. */
const HEAD_BYTES = 4096;

/** A body read whole, or the head of one that went past the limit (the rest is discarded unread). */
export type BoundedBody = { ok: true; text: string } | { ok: false; head: string; received: number };

/**
 * Reads `stream` up to `limit` bytes. Past the limit it stops buffering, resolves with the first
 * bytes only, and lets the remaining data drain into nothing, so memory stays bounded whatever the
 * client sends.
 */
export function readBoundedBody(stream: Readable, limit: number): Promise<BoundedBody> {
  return new Promise((resolve, reject) => {
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
        resolve({ ok: false, head, received: size });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => resolve({ ok: true, text: Buffer.concat(chunks, size).toString("utf8") });
    const onError = (error: Error): void => reject(error);
    stream.on("data", onData);
    stream.on("end", onEnd);
    stream.on("error", onError);
  });
}
