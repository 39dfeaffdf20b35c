/**
 * A loop of admission requests that must reach the webhook: dry-run creates of a privileged Pod, each
 * of which Kyverno must deny with its message. Anything else (a webhook call that failed, no
 * endpoints, an admitted Pod) is a failure. Bounded in count and time; it stops by itself.
 */
import type { KubeClient } from "@kyverno-ts/kube";

/** A Pod that disallow-privileged-containers denies. */
export const PRIVILEGED_POD = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "privileged", namespace: "team-a" },
  spec: { containers: [{ name: "c", image: "busybox:1.36", securityContext: { privileged: true } }] },
};

/** What the loop saw. */
export interface LoopCounts {
  answered: number;
  failures: string[];
}

/** Starts sending; `stop()` ends the loop and returns the counts. */
export function admissionLoop(
  client: KubeClient,
  options: { maxRequests?: number; maxMs?: number; pauseMs?: number } = {},
) {
  const counts: LoopCounts = { answered: 0, failures: [] };
  let stopping = false;
  const started = Date.now();
  const done = (async () => {
    for (
      let i = 0;
      i < (options.maxRequests ?? 5000) && !stopping && Date.now() - started < (options.maxMs ?? 300000);
      i++
    ) {
      const result = await client.create(PRIVILEGED_POD, { dryRun: true });
      if (!result.ok && result.message.includes("disallow-privileged-containers")) counts.answered++;
      else counts.failures.push(result.ok ? "admitted" : `${result.status} ${result.message}`);
      await new Promise((r) => setTimeout(r, options.pauseMs ?? 50));
    }
  })();
  return {
    async stop(): Promise<LoopCounts> {
      stopping = true;
      await done;
      return counts;
    },
  };
}
