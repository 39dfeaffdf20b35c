/** Decoding a watch stream's lines into `WatchEvent`s. */
import { clientFailure, failureFromResponse } from "./failure.js";
import type { ApiFailure, WatchEvent } from "./types.js";

const OBJECT_EVENTS = new Set(["ADDED", "MODIFIED", "DELETED", "BOOKMARK"]);

/** Decodes one line (`{"type":…,"object":…}`); a failure when it is not a watch event. */
export function decodeWatchLine<T>(line: string): WatchEvent<T> | ApiFailure {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return clientFailure(0, "BadResponse", `watch: a line is not JSON: ${line.slice(0, 200)}`);
  }
  const event = parsed as { type?: unknown; object?: unknown } | null;
  if (
    typeof event !== "object" ||
    event === null ||
    typeof event.object !== "object" ||
    event.object === null
  )
    return clientFailure(0, "BadResponse", `watch: not an event: ${line.slice(0, 200)}`);
  if (event.type === "ERROR") {
    const status = (event.object as { code?: unknown }).code;
    return {
      type: "ERROR",
      failure: failureFromResponse(typeof status === "number" ? status : 500, event.object),
    };
  }
  if (typeof event.type !== "string" || !OBJECT_EVENTS.has(event.type))
    return clientFailure(0, "BadResponse", `watch: unknown event type ${String(event.type)}`);
  return { type: event.type as "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK", object: event.object as T };
}
