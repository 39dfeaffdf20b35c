/**
 * Builds the notifier's targets from the `target:` configuration: parents and channels, each wrapped in
 * its own filter, HTTP clients shared per TLS setting, webhook keepalives.
 */

import type { Clock } from "@kyverno-ts/api";
import type { Logger } from "../../logger.js";
import { createHttpClient, type HttpClientOptions } from "../delivery/http-client.js";
import { type FilterConfig, type NamespaceLabelsLookup, withFilter } from "../filter/filter.js";
import { parseMinimumSeverity } from "../severity.js";
import type { DeliveryFailure, HttpClient, Severity, TargetBinding, TargetDeps } from "../types.js";
import { type Keepalive, type KeepaliveOptions, startWebhookKeepalive } from "../webhook/webhook.js";
import { TargetConfigError } from "./errors.js";
import type { AnyKindSpec, CommonTargetConfig } from "./kind-spec.js";
import { kindSpec, SUPPORTED_TARGET_KINDS, type TargetKind, type TargetsConfig } from "./kinds.js";

/** A built target as the targets API lists it. */
export interface TargetDescription {
  kind: TargetKind;
  name: string;
  /** Name of the parent for a channel. */
  parent?: string;
  minimumSeverity?: Severity;
  sources: string[];
  skipExistingOnStartup: boolean;
  sendResolved: boolean;
  filter?: FilterConfig;
  customFields: Record<string, string>;
}

/** Dependencies of `createTargetsFromConfig`. */
export interface TargetsFromConfigDeps {
  clock: Clock;
  logger: Logger;
  onError?: (failure: DeliveryFailure) => void;
  /** For `filter.namespaces.selector`. */
  namespaceLabels?: NamespaceLabelsLookup;
  /** Builds the HTTP client of a TLS setting (default `createHttpClient`); called once per distinct setting. */
  httpClient?: (options: HttpClientOptions) => HttpClient;
}

/** The built targets. */
export interface TargetSet {
  /** In configuration order: for each kind, the parent then its channels. */
  bindings: TargetBinding[];
  descriptions: TargetDescription[];
  /** Starts the webhook keepalives (no other I/O happens before). */
  start(): void;
  /** Stops keepalives and closes the HTTP clients. */
  close(): Promise<void>;
}

// A channel inherits these from its parent when it does not set them; never `name`, `filter`, `channels`,
// `customFields` or `sendResolved`.
const NOT_INHERITED = new Set(["name", "filter", "channels", "customFields", "sendResolved"]);

/** Merges a channel over its parent: unset, empty-string and empty-array channel values fall back. */
export function inheritChannel<C extends CommonTargetConfig>(parent: C, channel: C): C {
  const merged: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(parent)) if (!NOT_INHERITED.has(k)) merged[k] = v;
  for (const [k, v] of Object.entries(channel)) {
    const empty = v === undefined || v === "" || (Array.isArray(v) && v.length === 0);
    if (!empty || !(k in merged)) merged[k] = v;
  }
  return merged as C;
}

/**
 * Builds every configured target and channel. A parent without its endpoint (webhook, host, token…) is not
 * built, but its channels are (they may inherit nothing or set their own). Throws `TargetConfigError` for an
 * invalid `minimumSeverity`, enum value (`rotation`) or keepalive interval.
 */
export function createTargetsFromConfig(config: TargetsConfig, deps: TargetsFromConfigDeps): TargetSet {
  const clients = new Map<string, HttpClient>();
  const clientFor = (c: CommonTargetConfig): HttpClient => {
    const key = `${c.certificate ?? ""}\u0000${c.skipTLS === true}`;
    let client = clients.get(key);
    if (client === undefined) {
      const opts: HttpClientOptions = {
        ...(c.certificate ? { certificate: c.certificate } : {}),
        ...(c.skipTLS ? { skipTLS: true } : {}),
      };
      client = (deps.httpClient ?? createHttpClient)(opts);
      clients.set(key, client);
    }
    return client;
  };
  const bindings: TargetBinding[] = [];
  const descriptions: TargetDescription[] = [];
  const keepalives: { options: KeepaliveOptions; deps: TargetDeps }[] = [];

  const build = (
    kind: TargetKind,
    spec: AnyKindSpec,
    cfg: CommonTargetConfig,
    path: string,
    channel?: { parent: string; number: number },
  ): string | undefined => {
    const parent = channel?.parent;
    const values = cfg as Readonly<Record<string, unknown>>;
    if (spec.required.some((key) => !values[key])) return undefined;
    const parsed = parseMinimumSeverity(cfg.minimumSeverity || cfg.minimumPriority);
    if (!parsed.ok) throw new TargetConfigError(`${path}.minimumSeverity`, parsed.error);
    for (const [key, allowed] of Object.entries(spec.enums ?? {})) {
      const value = values[key];
      if (value !== undefined && value !== "" && !allowed.includes(String(value))) {
        throw new TargetConfigError(`${path}.${key}`, `must be ${orList(allowed)}, not "${value}"`);
      }
    }
    const name =
      cfg.name || (channel === undefined ? spec.label : `${channel.parent} Channel ${channel.number}`);
    const targetDeps: TargetDeps = {
      http: clientFor(cfg),
      clock: deps.clock,
      logger: deps.logger,
      ...(deps.onError ? { onError: deps.onError } : {}),
    };
    const base = {
      name,
      ...(cfg.customFields ? { customFields: cfg.customFields } : {}),
      ...(cfg.headers ? { headers: cfg.headers } : {}),
      ...(cfg.delivery ? { delivery: cfg.delivery } : {}),
    };
    const target = withFilter(
      spec.create(cfg, base, targetDeps),
      {
        ...(parsed.threshold ? { minimumSeverity: parsed.threshold } : {}),
        ...(cfg.sources ? { sources: cfg.sources } : {}),
        ...(cfg.filter ? { filter: cfg.filter } : {}),
      },
      deps.namespaceLabels ? { namespaceLabels: deps.namespaceLabels } : {},
    );
    const skipExistingOnStartup = cfg.skipExistingOnStartup ?? true;
    const sendResolved = cfg.sendResolved ?? false;
    bindings.push({ target, skipExistingOnStartup, sendResolved });
    descriptions.push({
      kind,
      name,
      ...(parent === undefined ? {} : { parent }),
      ...(parsed.threshold ? { minimumSeverity: parsed.threshold } : {}),
      sources: cfg.sources ?? [],
      skipExistingOnStartup,
      sendResolved,
      ...(cfg.filter ? { filter: cfg.filter } : {}),
      customFields: cfg.customFields ?? {},
    });
    const keepalive = spec.keepalive?.(cfg, base, path);
    if (keepalive !== undefined) keepalives.push({ options: keepalive, deps: targetDeps });
    return name;
  };

  for (const kind of SUPPORTED_TARGET_KINDS) {
    const cfg: (CommonTargetConfig & { channels?: CommonTargetConfig[] }) | undefined = config[kind];
    if (cfg === undefined) continue;
    const spec = kindSpec(kind);
    const path = `target.${kind}`;
    const parentName = build(kind, spec, cfg, path) ?? (cfg.name || spec.label);
    (cfg.channels ?? []).forEach((channel, i) => {
      build(kind, spec, inheritChannel(cfg, channel), `${path}.channels[${i}]`, {
        parent: parentName,
        number: i + 1,
      });
    });
  }

  let running: Keepalive[] = [];
  return {
    bindings,
    descriptions,
    start() {
      if (running.length > 0) return;
      running = keepalives.map((k) => startWebhookKeepalive(k.options, k.deps));
    },
    async close() {
      await Promise.all(running.map((k) => k.stop()));
      running = [];
      await Promise.all([...clients.values()].map((c) => c.close()));
    },
  };
}

/** `"a", "b" or "c"` without quotes: `a, b or c`. */
function orList(items: readonly string[]): string {
  return items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;
}
