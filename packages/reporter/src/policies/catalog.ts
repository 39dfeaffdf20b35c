/**
 * `createPolicyCatalog`: the bounded in-memory map of Kyverno policy details the API serves, keyed
 * by the name results use (`name` for a ClusterPolicy, `namespace/name` for a Policy). Filled by
 * the policy watcher in cluster mode, or directly (tests, the demo server).
 */
import type { PolicyDetails, PolicyDetailsKind, PolicyDetailsSummary } from "../api/contract.js";
import { type PolicyDetailsOptions, policyDetailsOf, policySummaryOf } from "./details.js";

/** Options of {@link createPolicyCatalog}. */
export interface PolicyCatalogOptions extends PolicyDetailsOptions {
  /** Policies kept at most (default 5,000); further new ones are refused until others go. */
  maxEntries?: number;
  /** Called once each time a new policy is refused because the catalog is full. */
  onFull?: (policy: string) => void;
}

/** What {@link PolicyCatalog.upsert} did with an object. */
export type CatalogUpsert = "stored" | "ignored" | "full";

/** The policy details the reporter knows; create with {@link createPolicyCatalog}. */
export interface PolicyCatalog {
  /** The kinds being watched; empty while no policies are watched (the API then says so). */
  watched(): readonly PolicyDetailsKind[];
  /** Records which kinds are watched (the watcher calls this once it started). */
  setWatched(kinds: readonly PolicyDetailsKind[]): void;
  /** Adds or replaces a ClusterPolicy / Policy object; other objects are ignored. */
  upsert(object: unknown): CatalogUpsert;
  /** Forgets a policy. */
  remove(kind: PolicyDetailsKind, name: string, namespace?: string): void;
  /** A policy by the name results use (`name` or `namespace/name`). */
  get(policy: string): PolicyDetails | undefined;
  /** Every known policy, sorted by the name results use. */
  list(): PolicyDetailsSummary[];
  size(): number;
}

const keyOf = (kind: PolicyDetailsKind, name: string, namespace?: string): string =>
  kind === "Policy" && namespace ? `${namespace}/${name}` : name;

/** Creates an empty catalog (watching nothing). */
export function createPolicyCatalog(options: PolicyCatalogOptions = {}): PolicyCatalog {
  const max = Math.max(1, options.maxEntries ?? 5000);
  const entries = new Map<string, PolicyDetails>();
  let watched: readonly PolicyDetailsKind[] = [];
  return {
    watched: () => watched,
    setWatched(kinds) {
      watched = [...kinds];
    },
    upsert(object) {
      const details = policyDetailsOf(object, options);
      if (!details) return "ignored";
      if (!entries.has(details.policy) && entries.size >= max) {
        options.onFull?.(details.policy);
        return "full";
      }
      entries.set(details.policy, details);
      return "stored";
    },
    remove(kind, name, namespace) {
      const key = keyOf(kind, name, namespace);
      if (entries.get(key)?.kind === kind) entries.delete(key);
    },
    get: (policy) => entries.get(policy),
    list: () =>
      [...entries.values()]
        .sort((a, b) => (a.policy < b.policy ? -1 : a.policy > b.policy ? 1 : 0))
        .map(policySummaryOf),
    size: () => entries.size,
  };
}
