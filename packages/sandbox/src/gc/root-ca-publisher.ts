/**
 * kube-controller-manager's root CA publisher (`root-ca-cert-publisher`): every active namespace holds
 * the ConfigMap `kube-root-ca.crt` whose `ca.crt` is the API server's CA, with the
 * `kubernetes.io/description` annotation. It is created with the namespace, recreated when deleted, and
 * put back when its data or annotation is changed, as upstream's `syncNamespace` does. The ServiceAccount
 * token volume injected into Pods reads `ca.crt` from it.
 */
import { asObject, metadataOf, metaString } from "../objects/meta.js";
import type { ApiEnv } from "../verbs/context.js";
import { internalEnsure, internalUpdate } from "../verbs/internal.js";
import type { WorkQueue } from "./work-queue.js";

/** The ConfigMap's name, as upstream's `RootCACertConfigMapName`. */
export const ROOT_CA_CONFIGMAP = "kube-root-ca.crt";
const DESCRIPTION_ANNOTATION = "kubernetes.io/description";
const DESCRIPTION =
  "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. " +
  "No other usage is guaranteed across distributions of Kubernetes clusters.";

/** Starts the controller; returns the function that stops listening. */
export function startRootCaPublisher(env: ApiEnv, queue: WorkQueue, caCertPem: string): () => void {
  const sync = (namespace: string): void => {
    const ns = env.store.get("namespaces", "", namespace);
    const resource = env.registry.byStorageKey("configmaps");
    if (ns === undefined || resource === undefined || metaString(ns, "deletionTimestamp") !== "") return;
    const existing = env.store.get("configmaps", namespace, ROOT_CA_CONFIGMAP);
    if (existing === undefined) {
      internalEnsure(env, resource, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: {
          name: ROOT_CA_CONFIGMAP,
          namespace,
          annotations: { [DESCRIPTION_ANNOTATION]: DESCRIPTION },
        },
        data: { "ca.crt": caCertPem },
      });
      return;
    }
    if (metaString(existing, "deletionTimestamp") !== "") return;
    const data = asObject(existing.data) ?? {};
    const annotations = asObject(metadataOf(existing).annotations) ?? {};
    const described =
      typeof annotations[DESCRIPTION_ANNOTATION] === "string" && annotations[DESCRIPTION_ANNOTATION] !== "";
    const exact = Object.keys(data).length === 1 && data["ca.crt"] === caCertPem;
    if (exact && described) return;
    internalUpdate(env, resource, {
      ...existing,
      metadata: {
        ...metadataOf(existing),
        annotations: { ...annotations, [DESCRIPTION_ANNOTATION]: DESCRIPTION },
      },
      data: { "ca.crt": caCertPem },
    });
  };
  const schedule = (namespace: string): void => queue.add(`root-ca|${namespace}`, () => sync(namespace));
  for (const ns of env.store.list("namespaces")) schedule(metaString(ns, "name"));
  return env.store.subscribe((event) => {
    if (event.storageKey === "namespaces") {
      if (event.type !== "DELETED") schedule(metaString(event.object, "name"));
    } else if (event.storageKey === "configmaps" && metaString(event.object, "name") === ROOT_CA_CONFIGMAP)
      schedule(metaString(event.object, "namespace"));
  });
}
