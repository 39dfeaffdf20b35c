/**
 * The ReplicaSet controller: as many Pods as `spec.replicas` (created from the template, owned by the
 * ReplicaSet, bound to this node), extra Pods deleted not-ready first, then newest; status counts.
 */
import type { KubeClient } from "@kyverno-ts/kube";
import type { Pod } from "../pods/pod-types.js";
import {
  controlledBy,
  ownerReference,
  podActive,
  podFromTemplate,
  podReady,
  type ReplicaSet,
} from "./objects.js";

/** Reconciles one ReplicaSet against its Pods. */
export async function reconcileReplicaSet(
  client: KubeClient,
  rs: ReplicaSet,
  pods: Pod[],
  nodeName: string,
): Promise<void> {
  const namespace = rs.metadata.namespace ?? "default";
  const owned = pods.filter((p) => controlledBy(p, rs.metadata.uid) && podActive(p));
  const desired = rs.spec.replicas ?? 0;
  if (owned.length < desired) {
    for (let i = owned.length; i < desired; i++) {
      const pod = podFromTemplate(
        rs.spec.template,
        namespace,
        `${rs.metadata.name}-`,
        ownerReference(rs, "apps/v1", "ReplicaSet"),
        nodeName,
      );
      const created = await client.create<Pod>(pod);
      if (created.ok) owned.push(created.value);
    }
  } else if (owned.length > desired) {
    const victims = [...owned]
      .sort((a, b) => {
        const readiness = Number(podReady(a)) - Number(podReady(b));
        if (readiness !== 0) return readiness;
        return (b.metadata.creationTimestamp ?? "").localeCompare(a.metadata.creationTimestamp ?? "");
      })
      .slice(0, owned.length - desired);
    for (const pod of victims) {
      await client.delete({ apiVersion: "v1", kind: "Pod", namespace, name: pod.metadata.name });
      owned.splice(owned.indexOf(pod), 1);
    }
  }
  const ready = owned.filter(podReady).length;
  const status = {
    replicas: owned.length,
    fullyLabeledReplicas: owned.length,
    readyReplicas: ready,
    availableReplicas: ready,
    observedGeneration: rs.metadata.generation ?? 1,
  };
  const current = (rs.status ?? {}) as Record<string, unknown>;
  if (Object.entries(status).every(([k, v]) => current[k] === v)) return;
  await client.patch(
    { apiVersion: "apps/v1", kind: "ReplicaSet", namespace, name: rs.metadata.name },
    { type: "merge", patch: { status } as never },
    { subresource: "status" },
  );
  rs.status = status;
}
