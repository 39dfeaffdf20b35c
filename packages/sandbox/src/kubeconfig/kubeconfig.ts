/** The kubeconfig file clients load: one cluster, and one user plus one context per sandbox user. */
import { writeFileSync } from "node:fs";
import { stringify } from "yaml";
import type { AuthenticatedUser } from "../auth/authenticator.js";

/** What goes into the kubeconfig. */
export interface KubeconfigOptions {
  server: string;
  caCertPem: string;
  users: readonly AuthenticatedUser[];
  /** The context selected by default (defaults to the first user's). */
  currentUser?: string;
  clusterName?: string;
}

/** The kubeconfig YAML; each context is named after its user. */
export function renderKubeconfig(options: KubeconfigOptions): string {
  const cluster = options.clusterName ?? "sandbox";
  const ca = Buffer.from(options.caCertPem).toString("base64");
  const current = options.currentUser ?? options.users[0]?.user.username ?? "kubernetes-admin";
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: cluster, cluster: { server: options.server, "certificate-authority-data": ca } }],
    users: options.users.map((u) => ({ name: u.user.username, user: { token: u.token } })),
    contexts: options.users.map((u) => ({
      name: u.user.username,
      context: { cluster, user: u.user.username, namespace: "default" },
    })),
    "current-context": current,
    preferences: {},
  });
}

/** Writes the kubeconfig (mode 0600, it holds tokens). */
export function writeKubeconfig(path: string, options: KubeconfigOptions): void {
  writeFileSync(path, renderKubeconfig(options), { mode: 0o600 });
}
