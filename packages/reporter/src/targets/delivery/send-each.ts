/**
 * Single-mode delivery of a batch.
 */
import type { NotifiableResult } from "../types.js";

/**
 * Sends each result in turn; every result is attempted even when an earlier one fails, and the first
 * failure is rethrown at the end. Shared by the single-mode targets.
 */
export async function sendEach(
  results: readonly NotifiableResult[],
  send: (result: NotifiableResult) => Promise<void>,
): Promise<void> {
  let first: unknown;
  let failed = false;
  for (const r of results) {
    try {
      await send(r);
    } catch (error) {
      if (!failed) first = error;
      failed = true;
    }
  }
  if (failed) throw first;
}
