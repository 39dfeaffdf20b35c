/**
 * The Job controller: one Pod at a time (parallelism and completions 1, as Helm's hook Jobs), a new Pod
 * per failure up to `backoffLimit`, and the Job's status with the `Complete` (and `SuccessCriteriaMet`)
 * or `Failed` condition that Helm waits for.
 */
import type { KubeClient } from "@kyverno-ts/kube";
import type { Pod } from "../pods/pod-types.js";
import { controlledBy, type Job, ownerReference, podActive, podFromTemplate } from "./objects.js";

const now = (): string => new Date().toISOString().replace(/\.\d+Z$/, "Z");

/** Reconciles one Job against its Pods. */
export async function reconcileJob(
  client: KubeClient,
  job: Job,
  pods: Pod[],
  nodeName: string,
): Promise<void> {
  const conditions = job.status?.conditions ?? [];
  if (conditions.some((c) => (c.type === "Complete" || c.type === "Failed") && c.status === "True")) return;
  if (job.spec.suspend === true) return;
  const namespace = job.metadata.namespace ?? "default";
  const owned = pods.filter((p) => controlledBy(p, job.metadata.uid));
  const succeeded = owned.filter((p) => p.status?.phase === "Succeeded").length;
  const failed = owned.filter((p) => p.status?.phase === "Failed").length;
  let active = owned.filter(podActive).length;
  const completions = job.spec.completions ?? 1;
  const status: NonNullable<Job["status"]> & Record<string, unknown> = {
    active,
    succeeded,
    failed,
    ready: 0,
    startTime: job.status?.startTime ?? now(),
  };
  if (succeeded >= completions) {
    status.active = 0;
    status.completionTime = now();
    status.conditions = [
      {
        type: "SuccessCriteriaMet",
        status: "True",
        reason: "CompletionsReached",
        message: "Reached expected number of succeeded pods",
        lastProbeTime: now(),
        lastTransitionTime: now(),
      } as never,
      {
        type: "Complete",
        status: "True",
        reason: "CompletionsReached",
        message: "Reached expected number of succeeded pods",
        lastProbeTime: now(),
        lastTransitionTime: now(),
      } as never,
    ];
  } else if (failed > (job.spec.backoffLimit ?? 6)) {
    status.conditions = [
      {
        type: "FailureTarget",
        status: "True",
        reason: "BackoffLimitExceeded",
        message: "Job has reached the specified backoff limit",
        lastProbeTime: now(),
        lastTransitionTime: now(),
      } as never,
      {
        type: "Failed",
        status: "True",
        reason: "BackoffLimitExceeded",
        message: "Job has reached the specified backoff limit",
        lastProbeTime: now(),
        lastTransitionTime: now(),
      } as never,
    ];
  } else if (active < (job.spec.parallelism ?? 1)) {
    const uid = job.metadata.uid ?? "";
    const labels = {
      "batch.kubernetes.io/controller-uid": uid,
      "batch.kubernetes.io/job-name": job.metadata.name,
      "controller-uid": uid,
      "job-name": job.metadata.name,
    };
    const created = await client.create<Pod>(
      podFromTemplate(
        job.spec.template,
        namespace,
        `${job.metadata.name}-`,
        ownerReference(job, "batch/v1", "Job"),
        nodeName,
        labels,
      ),
    );
    if (created.ok) active++;
    status.active = active;
  }
  const current = (job.status ?? {}) as Record<string, unknown>;
  if (
    status.conditions === undefined &&
    ["active", "succeeded", "failed"].every((k) => current[k] === status[k]) &&
    current.startTime !== undefined
  )
    return;
  await client.patch(
    { apiVersion: "batch/v1", kind: "Job", namespace, name: job.metadata.name },
    { type: "merge", patch: { status } as never },
    { subresource: "status" },
  );
}
