import type { JsonValue, KubeObject, LabelSelector } from "@kyverno-ts/api";
import { type ContextLoader, type LoadResult, matchWildcard } from "@kyverno-ts/engine";
import { matchLabelSelector } from "@kyverno-ts/k8s";
import { ClusterMessages } from "../output/messages.js";

/**
 * Objects the CLI pretends exist in the cluster: where `generate.clone` / `cloneList` sources
 * (`--cluster-resource`, a test's resources, `clusterResources` and `cloneSourceResource` files)
 * and mutate-existing targets (`--target-resource`, a test's `targetResources`) come from.
 */
export interface ResourcePool {
  /** Clone sources, for generate rules. */
  sources: readonly KubeObject[];
  /** Targets, for mutate-existing rules. */
  targets: readonly KubeObject[];
}

/** Which part of the pool the loader answers from; switched by the evaluation phase. */
export type PoolPart = keyof ResourcePool;

/** A context loader over a resource pool, answering from the part selected with `use`. */
export interface PoolLoader {
  loader: ContextLoader;
  use(part: PoolPart): void;
}

/** Splits a kind as written in policies (`Kind`, `v1/Kind`, `group/version/Kind`) into apiVersion and kind. */
function splitKind(written: string): { apiVersion: string; kind: string } {
  const parts = written.split("/");
  const kind = parts.pop() ?? "";
  return { apiVersion: parts.join("/"), kind };
}

function sameApiVersion(wanted: string, object: KubeObject): boolean {
  return wanted === "" || wanted === "*" || object.apiVersion === undefined || object.apiVersion === wanted;
}

function labelsOf(o: KubeObject): Record<string, string> {
  return o.metadata?.labels ?? {};
}

/** A deep copy, so the engine never sees (or changes) the objects of the pool itself. */
function copy(o: KubeObject): JsonValue {
  return structuredClone(o) as unknown as JsonValue;
}

/**
 * Builds the loader behind `generate.clone` / `cloneList` and mutate-existing targets. An object is
 * found by kind (and apiVersion when both sides have one), name and namespace; an empty namespace
 * in a request means any namespace. A missing clone source is an error result naming it.
 */
export function createPoolLoader(pool: ResourcePool): PoolLoader {
  let part: PoolPart = "sources";
  const objects = () => pool[part];
  const loader: ContextLoader = {
    getResource(apiVersion, kind, namespace, name): LoadResult {
      const found = objects().find(
        (o) =>
          o.kind === kind &&
          sameApiVersion(apiVersion, o) &&
          (o.metadata?.name ?? "") === name &&
          (namespace === "" || (o.metadata?.namespace ?? "") === namespace),
      );
      if (found) return { ok: true, value: copy(found) };
      return { ok: false, error: ClusterMessages.notFound(apiVersion, kind, namespace, name) };
    },
    listResources(kinds: readonly string[], namespace: string, selector?: LabelSelector): LoadResult {
      const wanted = kinds.map(splitKind);
      const items = objects().filter(
        (o) =>
          wanted.some(
            (w) => (w.kind === "*" || matchWildcard(w.kind, o.kind ?? "")) && sameApiVersion(w.apiVersion, o),
          ) &&
          (namespace === "" || (o.metadata?.namespace ?? "") === namespace) &&
          (selector === undefined || matchLabelSelector(selector, labelsOf(o))),
      );
      return { ok: true, value: items.map(copy) };
    },
  };
  return {
    loader,
    use(p) {
      part = p;
    },
  };
}
