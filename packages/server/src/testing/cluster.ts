/**
 * Helpers of the cluster-mode tests: the upstream Kyverno CRDs (read from the shared reference folder
 * beside the repository, never copied), polling, and reading objects back.
 */
import { fileURLToPath } from "node:url";
import type { KubeObject } from "@kyverno-ts/api";
import type { KubeClient } from "@kyverno-ts/kube";

const CRD_DIR = new URL("../../../../../shared/reference/kyverno-crds/kyverno/", import.meta.url);

/**
 * The CRDs the admission controller uses: ClusterPolicy, Policy, PolicyException (watched), and the
 * ephemeral reports it hands admission results over in.
 */
export const KYVERNO_CRDS: string[] = [
  "kyverno.io_clusterpolicies.yaml",
  "kyverno.io_policies.yaml",
  "kyverno.io_policyexceptions.yaml",
  "../reports/reports.kyverno.io_ephemeralreports.yaml",
  "../reports/reports.kyverno.io_clusterephemeralreports.yaml",
].map((file) => fileURLToPath(new URL(file, CRD_DIR)));

/** Polls `check` (sync or async) every 25 ms until it holds; throws after `ms`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  ms = 10_000,
  what = "condition",
): Promise<void> {
  const start = Date.now();
  for (;;) {
    if (await check()) return;
    if (Date.now() - start > ms) throw new Error(`${what} not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Reads an object; undefined when it does not exist, throws on other failures. */
export async function read(
  client: KubeClient,
  ref: { apiVersion: string; kind: string; name: string; namespace?: string },
): Promise<KubeObject | undefined> {
  const got = await client.get(ref);
  if (got.ok) return got.value;
  if (got.status === 404) return undefined;
  throw new Error(`${ref.kind} ${ref.name}: ${got.message}`);
}

/** Waits until a ClusterPolicy / Policy reports `status.ready: true`. */
export async function policyReady(
  client: KubeClient,
  name: string,
  options: { namespace?: string; ms?: number } = {},
): Promise<KubeObject> {
  const kind = options.namespace === undefined ? "ClusterPolicy" : "Policy";
  let last: KubeObject | undefined;
  await until(
    async () => {
      last = await read(client, {
        apiVersion: "kyverno.io/v1",
        kind,
        name,
        ...(options.namespace ? { namespace: options.namespace } : {}),
      });
      return (last?.status as { ready?: unknown } | undefined)?.ready === true;
    },
    options.ms ?? 15_000,
    `${kind} ${name} ready`,
  );
  return last as KubeObject;
}
