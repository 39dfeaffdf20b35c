/**
 * Elasticsearch target (single mode): one document per result in a rotating index.
 */
import { sendEach } from "../delivery/send-each.js";
import { basicAuth, createJsonSender } from "../delivery/sender.js";
import { sharedJsonResult } from "../format.js";
import type { BaseTargetOptions, NotifiableResult, SendContext, Target, TargetDeps } from "../types.js";

/** The index rotations, as the `rotation` key accepts them. */
export const INDEX_ROTATIONS = ["daily", "monthly", "annually", "none"] as const;

/** Index suffix: daily `-YYYY.MM.DD`, monthly `-YYYY.MM`, annually `-YYYY`, none. */
export type IndexRotation = (typeof INDEX_ROTATIONS)[number];

/** Options of the Elasticsearch target. */
export interface ElasticsearchOptions extends BaseTargetOptions {
  host: string;
  /** Index name (default `policy-reporter`). */
  index?: string;
  /** Default `daily`. */
  rotation?: IndexRotation;
  /** Use `/_doc` (typeless API, Elasticsearch 7+) instead of the legacy `/event` type. */
  typelessApi?: boolean;
  username?: string;
  password?: string;
  /** Sent as `Authorization: ApiKey <apiKey>`; takes precedence over basic auth. */
  apiKey?: string;
}

/** The index of a document written at `now` (UTC dates). */
export function elasticsearchIndex(index: string, rotation: IndexRotation, now: Date): string {
  const y = String(now.getUTCFullYear());
  const m = String(now.getUTCMonth() + 1).padStart(2, "0");
  const d = String(now.getUTCDate()).padStart(2, "0");
  switch (rotation) {
    case "none":
      return index;
    case "annually":
      return `${index}-${y}`;
    case "monthly":
      return `${index}-${y}.${m}`;
    default:
      return `${index}-${y}.${m}.${d}`;
  }
}

/** Creates the Elasticsearch target: POST `host/<index>/_doc` (or `/event`) with the shared JSON body. */
export function createElasticsearchTarget(options: ElasticsearchOptions, deps: TargetDeps): Target {
  const name = options.name ?? "Elasticsearch";
  const post = createJsonSender(name, options.headers, options.delivery, deps);
  const host = options.host.replace(/\/+$/, "");
  const auth: Record<string, string> = options.apiKey
    ? { authorization: `ApiKey ${options.apiKey}` }
    : options.username
      ? { authorization: basicAuth(options.username, options.password ?? "") }
      : {};
  const send = async (result: NotifiableResult, _context?: SendContext): Promise<void> => {
    const now = new Date(deps.clock.now());
    const index = elasticsearchIndex(options.index || "policy-reporter", options.rotation ?? "daily", now);
    const url = `${host}/${index}/${options.typelessApi ? "_doc" : "event"}`;
    await post({ url, payload: sharedJsonResult(result, options.customFields, now), headers: auth });
  };
  return { name, send, sendBatch: (results, context) => sendEach(results, (r) => send(r, context)) };
}
