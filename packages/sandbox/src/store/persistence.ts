/**
 * Optional persistence to a directory: a snapshot (`objects.json`, replaced atomically by write-to-temp
 * and rename) plus an append-only log of writes since (`writes.jsonl`). Replaying the log is idempotent,
 * a torn last line (crash mid-append) is ignored, and the log is folded into the snapshot at start and
 * every `compactEvery` writes. Both hold Secrets and webhook keys: they are written 0600 in a 0700 directory.
 */
import { appendFileSync, existsSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import type { JsonObject } from "@kyverno-ts/api";
import type { StoreEvent } from "./history.js";
import { secureDir, secureFile, writeSecretFile } from "./state-files.js";
import type { StoredRef } from "./store.js";

/** What a data directory held. */
export interface PersistedState {
  objects: StoredRef[];
  rv: number;
}

/** Appends each write to the log; `compact` folds the log into a fresh snapshot. */
export interface Persistence {
  record(event: StoreEvent): void;
  compact(objects: StoredRef[], rv: number): void;
}

interface Snapshot {
  rv: number;
  objects: StoredRef[];
}

interface LogEntry {
  rv: number;
  storageKey: string;
  key: string;
  object?: JsonObject;
}

const SNAPSHOT = "objects.json";
const LOG = "writes.jsonl";

/** Reads the state kept in `dir` (empty when there is none yet). */
export function loadPersisted(dir: string): PersistedState {
  secureDir(dir);
  const state = new Map<string, StoredRef>();
  let rv = 0;
  const snapshotPath = join(dir, SNAPSHOT);
  if (existsSync(snapshotPath)) {
    const snapshot = JSON.parse(readFileSync(snapshotPath, "utf8")) as Snapshot;
    rv = snapshot.rv;
    for (const ref of snapshot.objects) state.set(`${ref.storageKey}|${keyOf(ref.object)}`, ref);
  }
  const logPath = join(dir, LOG);
  secureFile(snapshotPath);
  secureFile(logPath);
  if (existsSync(logPath)) {
    for (const line of readFileSync(logPath, "utf8").split("\n")) {
      const entry = parseLine(line);
      if (entry === undefined) continue;
      rv = Math.max(rv, entry.rv);
      const id = `${entry.storageKey}|${entry.key}`;
      if (entry.object === undefined) state.delete(id);
      else state.set(id, { storageKey: entry.storageKey, object: entry.object });
    }
  }
  return { objects: [...state.values()], rv };
}

function parseLine(line: string): LogEntry | undefined {
  if (line.trim() === "") return undefined;
  try {
    return JSON.parse(line) as LogEntry;
  } catch {
    return undefined;
  }
}

function keyOf(object: JsonObject): string {
  const m = object.metadata as JsonObject | undefined;
  return `${typeof m?.namespace === "string" ? m.namespace : ""}/${typeof m?.name === "string" ? m.name : ""}`;
}

/** Where compaction reads the full state from (the store, once it exists). */
export interface PersistenceSource {
  entries(): StoredRef[];
  currentRv(): number;
}

/**
 * Starts persisting into `dir` (already loaded with `loadPersisted`); every `compactEvery` writes
 * (default 2000) the log is folded into the snapshot read from `source()`.
 */
export function createPersistence(
  dir: string,
  source: () => PersistenceSource,
  compactEvery = 2000,
): Persistence {
  const logPath = join(dir, LOG);
  let writes = 0;
  const persistence: Persistence = {
    record(event) {
      const entry: LogEntry = { rv: event.rv, storageKey: event.storageKey, key: event.key };
      if (event.type !== "DELETED") entry.object = event.object;
      appendFileSync(logPath, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
      writes++;
      if (writes >= compactEvery) {
        const s = source();
        persistence.compact(s.entries(), s.currentRv());
      }
    },
    compact(objects, rv) {
      const tmp = join(dir, `${SNAPSHOT}.tmp`);
      writeSecretFile(tmp, JSON.stringify({ rv, objects } satisfies Snapshot));
      renameSync(tmp, join(dir, SNAPSHOT));
      writeSecretFile(logPath, "");
      writes = 0;
    },
  };
  return persistence;
}
