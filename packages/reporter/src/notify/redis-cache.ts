/**
 * The Redis `SeenCache`, shared by replicas: one key per seen result (`SET NX` with a TTL), one per open
 * failure (removed with `GETDEL`), so exactly one replica wins each result.
 */
import type { Redis } from "ioredis";
import type { ResultStatus } from "../targets/index.js";
import { DEFAULT_SEEN_TTL_MS, type OpenFailure, type SeenCache } from "./types.js";

/** Options of `createRedisSeenCache`. */
export interface RedisSeenCacheOptions {
  /** Key prefix (`redis.prefix`, default `policy-reporter`). */
  prefix?: string;
  /** Default `DEFAULT_SEEN_TTL_MS` (6 h). */
  ttlMs?: number;
}

const STATUSES: readonly ResultStatus[] = ["pass", "fail", "warn", "error", "skip"];

/** Marker value: the status, with `|existing` when the failure predates start-up. */
function encode(failure: OpenFailure): string {
  return failure.existing ? `${failure.status}|existing` : failure.status;
}

function decode(value: string): OpenFailure {
  const [status, flag] = value.split("|");
  const s = STATUSES.find((x) => x === status) ?? "fail";
  return { status: s, existing: flag === "existing" };
}

/** Escapes Redis glob characters for a SCAN pattern. */
function globEscape(s: string): string {
  return s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

/**
 * Creates a seen cache on `client` (an ioredis connection the caller owns and closes). Keys:
 * `<prefix>:seen:<reportId>:<resultId>` and `<prefix>:open:<reportId>:<key>`.
 */
export function createRedisSeenCache(client: Redis, options: RedisSeenCacheOptions = {}): SeenCache {
  const prefix = options.prefix || "policy-reporter";
  const ttl = options.ttlMs ?? DEFAULT_SEEN_TTL_MS;
  const seenKey = (reportId: string, id: string): string => `${prefix}:seen:${reportId}:${id}`;
  const openKey = (reportId: string, key: string): string => `${prefix}:open:${reportId}:${key}`;

  const exec = async (pipeline: ReturnType<Redis["pipeline"]>): Promise<unknown[]> => {
    const replies = (await pipeline.exec()) ?? [];
    return replies.map(([error, value]) => {
      if (error) throw error;
      return value;
    });
  };

  return {
    async claim(reportId, resultIds) {
      if (resultIds.length === 0) return new Set();
      const p = client.pipeline();
      for (const id of resultIds) {
        const key = seenKey(reportId, id);
        p.set(key, "1", "PX", ttl, "NX");
        p.pexpire(key, ttl);
      }
      const replies = await exec(p);
      const claimed = new Set<string>();
      resultIds.forEach((id, i) => {
        if (replies[i * 2] === "OK") claimed.add(id);
      });
      return claimed;
    },
    async trackFailures(reportId, opened, stillFailing) {
      if (opened.size === 0 && stillFailing.length === 0) return;
      const p = client.pipeline();
      for (const [key, failure] of opened) p.set(openKey(reportId, key), encode(failure), "PX", ttl);
      for (const key of stillFailing) p.pexpire(openKey(reportId, key), ttl);
      await exec(p);
    },
    async resolve(reportId, keys) {
      const removed = new Map<string, OpenFailure>();
      if (keys.length === 0) return removed;
      const p = client.pipeline();
      for (const key of keys) p.getdel(openKey(reportId, key));
      const replies = await exec(p);
      keys.forEach((key, i) => {
        const value = replies[i];
        if (typeof value === "string") removed.set(key, decode(value));
      });
      return removed;
    },
    async forget(reportId) {
      for (const kind of ["seen", "open"]) {
        const match = `${globEscape(prefix)}:${kind}:${globEscape(reportId)}:*`;
        let cursor = "0";
        do {
          const [next, keys] = await client.scan(cursor, "MATCH", match, "COUNT", 500);
          cursor = next;
          if (keys.length > 0) await client.unlink(...keys);
        } while (cursor !== "0");
      }
    },
  };
}
