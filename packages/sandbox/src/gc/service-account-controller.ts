/**
 * kube-controller-manager's ServiceAccounts controller: every active namespace has a `default`
 * ServiceAccount, created with the namespace and again when it is deleted. Pods run as it unless they
 * name another, so the kubelet's TokenRequest for it and `kubectl create token default` work.
 */
import { metaString } from "../objects/meta.js";
import type { ApiEnv } from "../verbs/context.js";
import { internalEnsure } from "../verbs/internal.js";
import type { WorkQueue } from "./work-queue.js";

const DEFAULT = "default";

/** Starts the controller; returns the function that stops listening. */
export function startServiceAccountController(env: ApiEnv, queue: WorkQueue): () => void {
  const ensure = (namespace: string): void => {
    const ns = env.store.get("namespaces", "", namespace);
    const resource = env.registry.byStorageKey("serviceaccounts");
    if (ns === undefined || resource === undefined || metaString(ns, "deletionTimestamp") !== "") return;
    internalEnsure(env, resource, {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: DEFAULT, namespace },
    });
  };
  const schedule = (namespace: string): void => queue.add(`sa|${namespace}`, () => ensure(namespace));
  for (const ns of env.store.list("namespaces")) schedule(metaString(ns, "name"));
  return env.store.subscribe((event) => {
    if (event.storageKey === "namespaces" && event.type === "ADDED")
      schedule(metaString(event.object, "name"));
    else if (
      event.storageKey === "serviceaccounts" &&
      event.type === "DELETED" &&
      metaString(event.object, "name") === DEFAULT
    )
      schedule(metaString(event.object, "namespace"));
  });
}
