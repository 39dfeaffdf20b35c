/**
 * The legacy service account token controller (kube-controller-manager's `serviceaccount-token`):
 * a Secret of type `kubernetes.io/service-account-token` whose `kubernetes.io/service-account.name`
 * annotation names an existing ServiceAccount gets `data.token` (a legacy token), `data["ca.crt"]`
 * and `data.namespace`, and the `kubernetes.io/service-account.uid` annotation; when that ServiceAccount
 * is deleted, its token Secrets are deleted too.
 */
import type { JsonObject } from "@kyverno-ts/api";
import type { WorkQueue } from "../gc/work-queue.js";
import { asObject, metadataOf, metaString } from "../objects/meta.js";
import type { ApiEnv } from "../verbs/context.js";
import { performDelete } from "../verbs/delete.js";
import { internalUpdate } from "../verbs/internal.js";
import type { ServiceAccountTokens } from "./service-account-tokens.js";

const TYPE = "kubernetes.io/service-account-token";
const NAME = "kubernetes.io/service-account.name";
const UID = "kubernetes.io/service-account.uid";
const b64 = (text: string): string => Buffer.from(text).toString("base64");

/** Starts the controller; returns the function that stops listening. */
export function startTokenSecretController(
  env: ApiEnv,
  queue: WorkQueue,
  tokens: ServiceAccountTokens,
  caCertPem: string,
): () => void {
  const sync = (namespace: string, name: string): void => {
    const secret = env.store.get("secrets", namespace, name);
    const resource = env.registry.byStorageKey("secrets");
    if (secret === undefined || resource === undefined || secret.type !== TYPE) return;
    if (metaString(secret, "deletionTimestamp") !== "") return;
    const annotations = asObject(metadataOf(secret).annotations) ?? {};
    const saName = typeof annotations[NAME] === "string" ? annotations[NAME] : "";
    const sa = env.store.get("serviceaccounts", namespace, saName);
    if (sa === undefined) return;
    const wantedUid = typeof annotations[UID] === "string" ? annotations[UID] : "";
    if (wantedUid !== "" && wantedUid !== metaString(sa, "uid")) return;
    const data = asObject(secret.data) ?? {};
    if (typeof data.token === "string" && data.token !== "" && wantedUid !== "") return;
    internalUpdate(env, resource, {
      ...secret,
      metadata: { ...metadataOf(secret), annotations: { ...annotations, [UID]: metaString(sa, "uid") } },
      data: {
        ...data,
        "ca.crt": b64(caCertPem),
        namespace: b64(namespace),
        token: b64(tokens.legacy(sa, secret)),
      },
    });
  };
  const removeTokensOf = (namespace: string, serviceAccount: JsonObject): void => {
    const resource = env.registry.byStorageKey("secrets");
    if (resource === undefined) return;
    for (const secret of env.store.list("secrets", namespace)) {
      const annotations = asObject(metadataOf(secret).annotations) ?? {};
      if (secret.type !== TYPE || annotations[NAME] !== metaString(serviceAccount, "name")) continue;
      const uid = typeof annotations[UID] === "string" ? annotations[UID] : "";
      if (uid !== "" && uid !== metaString(serviceAccount, "uid")) continue;
      performDelete(env, resource, secret, {
        propagationPolicy: "Background",
        preconditions: {},
        dryRun: false,
      });
    }
  };
  const schedule = (namespace: string, name: string): void =>
    queue.add(`sa-token|${namespace}/${name}`, () => sync(namespace, name));
  const scheduleFor = (namespace: string, serviceAccount: string): void => {
    for (const secret of env.store.list("secrets", namespace)) {
      const annotations = asObject(metadataOf(secret).annotations) ?? {};
      if (secret.type === TYPE && annotations[NAME] === serviceAccount)
        schedule(namespace, metaString(secret, "name"));
    }
  };
  for (const secret of env.store.list("secrets"))
    if (secret.type === TYPE) schedule(metaString(secret, "namespace"), metaString(secret, "name"));
  return env.store.subscribe((event) => {
    const namespace = metaString(event.object, "namespace");
    const name = metaString(event.object, "name");
    if (event.storageKey === "secrets" && event.type !== "DELETED" && event.object.type === TYPE)
      schedule(namespace, name);
    else if (event.storageKey === "serviceaccounts" && event.type === "ADDED") scheduleFor(namespace, name);
    else if (event.storageKey === "serviceaccounts" && event.type === "DELETED") {
      const deleted = event.object;
      queue.add(`sa-token-gc|${namespace}/${name}`, () => {
        if (env.store.get("serviceaccounts", namespace, name) === undefined)
          removeTokensOf(namespace, deleted);
      });
    }
  });
}
