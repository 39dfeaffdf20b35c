/** The example manifests: applied as their actors, as kubectl would send them, and their reports awaited. */
import type { JsonObject, KubeObject } from "@kyverno-ts/api";
import type { KubeClient } from "@kyverno-ts/kube";
import type { RunningReporter } from "@kyverno-ts/reporter";
import { refOf } from "./playground-objects.js";
import type { StageContext } from "./playground-stages.js";
import type { ExampleOutcome } from "./playground-types.js";
import type { Actor, ExampleStep } from "./scenario.js";
import { waitFor } from "./waiting.js";

/** Creates, or replaces when it exists, as `client`; the outcome as the user would see it. */
async function applyAs(client: KubeClient, step: ExampleStep): Promise<ExampleOutcome> {
  const created = await client.create<KubeObject>(step.object as KubeObject);
  if (created.ok) return { step, result: "created", warnings: created.warnings ?? [] };
  if (created.status === 409 && created.reason === "AlreadyExists") {
    const current = await client.get(refOf(step.object));
    if (current.ok) {
      const meta = { ...((step.object.metadata ?? {}) as JsonObject) };
      meta.resourceVersion = current.value.metadata?.resourceVersion ?? "";
      const updated = await client.update<KubeObject>({ ...step.object, metadata: meta } as KubeObject);
      if (updated.ok) return { step, result: "updated", warnings: updated.warnings ?? [] };
      return refusal(step, updated.message);
    }
  }
  return refusal(step, created.message);
}

function refusal(step: ExampleStep, message: string): ExampleOutcome {
  const blocked = /blocked due to the following policies/.test(message);
  return { step, result: blocked ? "blocked" : "failed", message, warnings: [] };
}

/** Applies the example manifests, each as its actor (unless `skipExamples`); their outcomes. */
export async function applyExamples(
  { options, scenario, progress }: StageContext,
  clients: Record<Actor, KubeClient>,
): Promise<ExampleOutcome[]> {
  const outcomes: ExampleOutcome[] = [];
  if (options.skipExamples !== true) {
    const done = progress.begin(`example manifests (${scenario.steps.length} requests)`);
    for (const step of scenario.steps) outcomes.push(await applyAs(clients[step.actor], step));
    const blocked = outcomes.filter((o) => o.result === "blocked").length;
    const admitted = outcomes.filter((o) => o.result === "created" || o.result === "updated").length;
    done(`${admitted} admitted, ${blocked} blocked`);
  }
  return outcomes;
}

/** How long the stored results must stay unchanged before the reports count as written (ms). */
const SETTLED_MS = 2000;

/** The names of the policies with a generate rule (their results come from the background controller). */
export function generatingPolicies(policies: readonly JsonObject[]): string[] {
  return policies
    .filter((p) => JSON.stringify((p.spec as JsonObject | undefined)?.rules ?? []).includes('"generate"'))
    .map((p) => String((p.metadata as JsonObject | undefined)?.name ?? ""));
}

/**
 * Resolves once every admitted example has its report in the reporter's store, every generating
 * policy has a result (the background controller's, on the trigger), and the stored results have
 * stopped changing for a while: a resource's background-scan rows and its admission rows (handed over
 * as ephemeral reports) arrive separately, so the first row of each is not yet the last.
 */
export async function reportsWritten(
  outcomes: readonly ExampleOutcome[],
  generating: readonly string[],
  reporter: RunningReporter,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<void> {
  const admitted = outcomes.filter((o) => o.result === "created" || o.result === "updated");
  await waitFor(
    async () => {
      for (const o of admitted) {
        const ref = refOf(o.step.object);
        const found = await reporter.store.resources({
          kinds: [ref.kind],
          resources: [ref.name],
          ...(ref.namespace !== undefined ? { namespaces: [ref.namespace] } : {}),
        });
        if (found.length === 0) return false;
      }
      if (generating.length === 0) return true;
      const byPolicy = await reporter.store.countBy(["policy"], {});
      const reported = new Set(byPolicy.map((c) => c.policy));
      return generating.every((name) => reported.has(name));
    },
    { what: "the reports of the examples", timeoutMs, signal },
  );
  let last = "";
  let since = Date.now();
  await waitFor(
    async () => {
      const counts = await reporter.store.countBy(["status"], {});
      const now = JSON.stringify(counts);
      if (now !== last) {
        last = now;
        since = Date.now();
      }
      return Date.now() - since >= SETTLED_MS;
    },
    { what: "the stored results to settle", timeoutMs, signal, intervalMs: 200 },
  );
}
