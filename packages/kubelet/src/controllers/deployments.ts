/**
 * The Deployment controller: one ReplicaSet per Pod template (named `<deployment>-<pod-template-hash>`,
 * revisions in `deployment.kubernetes.io/revision`), rolling updates within `maxSurge` /
 * `maxUnavailable` counted on available Pods (`Recreate`: old Pods gone first), old ReplicaSets beyond
 * `revisionHistoryLimit` deleted, and the Deployment's status (replicas, updated, ready, available,
 * observedGeneration, Available / Progressing conditions) that `kubectl rollout status` and
 * `helm --wait` read.
 */
import type { KubeClient } from "@kyverno-ts/kube";
import type { Pod } from "../pods/pod-types.js";
import {
  controlledBy,
  type Deployment,
  intOrPercent,
  ownerReference,
  podReady,
  type ReplicaSet,
  templateHash,
} from "./objects.js";

const REVISION = "deployment.kubernetes.io/revision";
const HASH = "pod-template-hash";

const now = (): string => new Date().toISOString().replace(/\.\d+Z$/, "Z");
const replicasOf = (rs: ReplicaSet): number => rs.spec.replicas ?? 0;
const revisionOf = (rs: ReplicaSet): number => Number(rs.metadata.annotations?.[REVISION] ?? "0");

function podsOf(rs: ReplicaSet, pods: Pod[]): Pod[] {
  return pods.filter((p) => controlledBy(p, rs.metadata.uid) && p.metadata.deletionTimestamp === undefined);
}

async function scale(
  client: KubeClient,
  rs: ReplicaSet,
  replicas: number,
  extra: Record<string, string> = {},
): Promise<void> {
  if (replicasOf(rs) === replicas && Object.keys(extra).length === 0) return;
  await client.patch(
    {
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      namespace: rs.metadata.namespace ?? "",
      name: rs.metadata.name,
    },
    { type: "merge", patch: { metadata: { annotations: extra }, spec: { replicas } } as never },
  );
  rs.spec.replicas = replicas;
}

/** Reconciles one Deployment against its ReplicaSets and their Pods. */
export async function reconcileDeployment(
  client: KubeClient,
  deployment: Deployment,
  allSets: ReplicaSet[],
  pods: Pod[],
): Promise<void> {
  const meta = deployment.metadata;
  const namespace = meta.namespace ?? "default";
  const sets = allSets.filter((rs) => controlledBy(rs, meta.uid));
  const hash = templateHash(deployment.spec.template);
  const desired = deployment.spec.replicas ?? 1;
  let newSet = sets.find((rs) => rs.metadata.labels?.[HASH] === hash);
  const maxRevision = Math.max(0, ...sets.map(revisionOf));
  if (newSet === undefined) {
    const labels = { ...(deployment.spec.template.metadata?.labels ?? {}), [HASH]: hash };
    const created = await client.create<ReplicaSet>({
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: {
        name: `${meta.name}-${hash}`,
        namespace,
        labels,
        annotations: {
          [REVISION]: String(maxRevision + 1),
          "deployment.kubernetes.io/desired-replicas": String(desired),
        },
        ownerReferences: [ownerReference(deployment, "apps/v1", "Deployment")],
      },
      spec: {
        replicas: 0,
        selector: {
          ...deployment.spec.selector,
          matchLabels: { ...(deployment.spec.selector.matchLabels ?? {}), [HASH]: hash },
        },
        template: { ...deployment.spec.template, metadata: { ...deployment.spec.template.metadata, labels } },
        ...(deployment.spec.minReadySeconds === undefined
          ? {}
          : { minReadySeconds: deployment.spec.minReadySeconds }),
      },
    });
    if (!created.ok) return;
    newSet = created.value;
    sets.push(newSet);
  } else if (revisionOf(newSet) < maxRevision) {
    // A rollback to an older template: that ReplicaSet becomes the newest revision.
    await scale(client, newSet, replicasOf(newSet), { [REVISION]: String(maxRevision + 1) });
  }
  const olds = sets.filter((rs) => rs !== newSet);
  if (deployment.spec.paused !== true) await rollout(client, deployment, newSet, olds, pods, desired);
  await pruneHistory(client, deployment, olds);
  await writeStatus(client, deployment, newSet, sets, pods, desired);
}

async function rollout(
  client: KubeClient,
  d: Deployment,
  newSet: ReplicaSet,
  olds: ReplicaSet[],
  pods: Pod[],
  desired: number,
): Promise<void> {
  const available = (rs: ReplicaSet) => podsOf(rs, pods).filter(podReady).length;
  if (d.spec.strategy?.type === "Recreate") {
    for (const rs of olds) await scale(client, rs, 0);
    const oldPods = olds.reduce(
      (n, rs) => n + pods.filter((p) => controlledBy(p, rs.metadata.uid)).length,
      0,
    );
    if (oldPods === 0) await scale(client, newSet, desired);
    return;
  }
  const surge = intOrPercent(d.spec.strategy?.rollingUpdate?.maxSurge, desired, "25%", true);
  let unavailable = intOrPercent(d.spec.strategy?.rollingUpdate?.maxUnavailable, desired, "25%", false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  // Scale up the new ReplicaSet within maxSurge.
  const total = replicasOf(newSet) + olds.reduce((n, rs) => n + replicasOf(rs), 0);
  if (replicasOf(newSet) > desired) await scale(client, newSet, desired);
  else if (total < desired + surge && replicasOf(newSet) < desired)
    await scale(client, newSet, Math.min(desired, replicasOf(newSet) + desired + surge - total));
  // Scale down old ReplicaSets while enough Pods stay available.
  const minAvailable = desired - unavailable;
  const allAvailable = available(newSet) + olds.reduce((n, rs) => n + available(rs), 0);
  let canRemove = allAvailable - minAvailable;
  const byAge = [...olds].sort((a, b) => revisionOf(a) - revisionOf(b));
  for (const rs of byAge) {
    // Pods that are not available cost no availability to remove.
    const unavailableHere = Math.max(0, replicasOf(rs) - available(rs));
    const remove = Math.min(replicasOf(rs), unavailableHere + Math.max(0, canRemove));
    if (remove <= 0) continue;
    canRemove -= Math.max(0, remove - unavailableHere);
    await scale(client, rs, replicasOf(rs) - remove);
  }
}

async function pruneHistory(client: KubeClient, d: Deployment, olds: ReplicaSet[]): Promise<void> {
  const limit = d.spec.revisionHistoryLimit ?? 10;
  const idle = olds
    .filter((rs) => replicasOf(rs) === 0 && (rs.status?.replicas ?? 0) === 0)
    .sort((a, b) => revisionOf(a) - revisionOf(b));
  for (const rs of idle.slice(0, Math.max(0, idle.length - limit)))
    await client.delete({
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      namespace: rs.metadata.namespace ?? "",
      name: rs.metadata.name,
    });
}

async function writeStatus(
  client: KubeClient,
  d: Deployment,
  newSet: ReplicaSet,
  sets: ReplicaSet[],
  pods: Pod[],
  desired: number,
): Promise<void> {
  const all = sets.flatMap((rs) => podsOf(rs, pods));
  const updated = podsOf(newSet, pods);
  const ready = all.filter(podReady).length;
  const unavailableAllowed = intOrPercent(
    d.spec.strategy?.rollingUpdate?.maxUnavailable,
    desired,
    "25%",
    false,
  );
  const complete =
    updated.length === desired && all.length === desired && updated.filter(podReady).length === desired;
  const old =
    (d.status?.conditions as
      | Array<{ type: string; status: string; lastTransitionTime?: string; reason?: string }>
      | undefined) ?? [];
  const cond = (type: string, status: string, reason: string, message: string) => {
    const previous = old.find((c) => c.type === type);
    const since =
      previous?.status === status && previous.reason === reason
        ? (previous.lastTransitionTime ?? now())
        : now();
    return { type, status, reason, message, lastUpdateTime: now(), lastTransitionTime: since };
  };
  const status = {
    observedGeneration: d.metadata.generation ?? 1,
    replicas: all.length,
    updatedReplicas: updated.length,
    readyReplicas: ready,
    availableReplicas: ready,
    unavailableReplicas: Math.max(0, desired - ready),
    conditions: [
      ready >= desired - unavailableAllowed
        ? cond("Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.")
        : cond(
            "Available",
            "False",
            "MinimumReplicasUnavailable",
            "Deployment does not have minimum availability.",
          ),
      complete
        ? cond(
            "Progressing",
            "True",
            "NewReplicaSetAvailable",
            `ReplicaSet "${newSet.metadata.name}" has successfully progressed.`,
          )
        : cond(
            "Progressing",
            "True",
            "ReplicaSetUpdated",
            `ReplicaSet "${newSet.metadata.name}" is progressing.`,
          ),
    ],
  };
  const current = d.status ?? {};
  const same =
    (
      ["observedGeneration", "replicas", "updatedReplicas", "readyReplicas", "availableReplicas"] as const
    ).every((k) => current[k] === status[k]) &&
    JSON.stringify(
      (current.conditions as unknown[] | undefined)?.map((c) => [
        (c as { type: string }).type,
        (c as { status: string }).status,
        (c as { reason: string }).reason,
      ]),
    ) === JSON.stringify(status.conditions.map((c) => [c.type, c.status, c.reason]));
  const revision = newSet.metadata.annotations?.[REVISION];
  if (revision !== undefined && d.metadata.annotations?.[REVISION] !== revision)
    await client.patch(
      {
        apiVersion: "apps/v1",
        kind: "Deployment",
        namespace: d.metadata.namespace ?? "",
        name: d.metadata.name,
      },
      { type: "merge", patch: { metadata: { annotations: { [REVISION]: revision } } } as never },
    );
  if (same) return;
  await client.patch(
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      namespace: d.metadata.namespace ?? "",
      name: d.metadata.name,
    },
    { type: "merge", patch: { status } as never },
    { subresource: "status" },
  );
}
