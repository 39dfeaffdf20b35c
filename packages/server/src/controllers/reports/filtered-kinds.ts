/**
 * Kinds the `resourceFilters` of Kyverno's ConfigMap leave out entirely (`[Event,*,*]`,
 * `[ReplicaSet,*,*]` among the chart's defaults): none of their resources can get a report, so the
 * controller does not watch them. Watching them cost a reconcile per object and its cache in memory,
 * and for Events (which `check-deprecated-apis` matches as `events.k8s.io/*\/Event`) a reconcile per
 * Event the scan itself emitted.
 */
import { matchWildcard } from "@kyverno-ts/engine";
import type { KyvernoConfig } from "../admission/filters.js";

/** Whether a filter covers every resource of a kind (any group, version, namespace and name). */
export function kindFilteredEverywhere(
  config: Pick<KyvernoConfig, "resourceFilters">,
  kind: string,
): boolean {
  return config.resourceFilters.some(
    (f) =>
      f.namespace === "*" &&
      f.name === "*" &&
      f.selector.group === "*" &&
      f.selector.version === "*" &&
      matchWildcard(f.selector.subresource, "") &&
      matchWildcard(f.selector.kind, kind),
  );
}
