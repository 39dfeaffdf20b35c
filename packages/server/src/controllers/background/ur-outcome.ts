/**
 * An UpdateRequest's end, as upstream: the outcome (`Completed` or `Skip`, its message, for generate
 * the resources written) is written on its status, so `kubectl get ur -w` sees it, and a Completed one
 * is then deleted (upstream's cleanup deletes only Completed ones; a Skip one stays until a new request
 * on its trigger sets it Pending again). Both calls carry the resourceVersion: an UpdateRequest set back
 * to Pending meanwhile (409) is left for the update event that queues it again.
 */
import type { KubeObject } from "@kyverno-ts/api";
import type { KubeClient } from "@kyverno-ts/kube";
import type { Logger } from "../../logger.js";
import type { ProcessOutcome } from "./process.js";
import { type UpdateRequest, type UpdateRequestStatus, UR_API_VERSION, UR_KIND } from "./update-request.js";

/** Where UpdateRequests are written. */
export interface OutcomeDeps {
  client: KubeClient;
  /** Kyverno's namespace: UpdateRequests live there. */
  namespace: string;
  logger: Logger;
}

/** Deletes a finished UpdateRequest, at the resourceVersion it was finished at (throws on API failures). */
export async function removeUpdateRequest(deps: OutcomeDeps, ur: UpdateRequest): Promise<void> {
  const rv = ur.metadata.resourceVersion;
  const deleted = await deps.client.delete(
    { apiVersion: UR_API_VERSION, kind: UR_KIND, namespace: deps.namespace, name: ur.metadata.name },
    rv ? { preconditions: { resourceVersion: rv } } : {},
  );
  // 409: set back to Pending meanwhile (the trigger changed again): the update event queues it again.
  if (!deleted.ok && deleted.status !== 404 && deleted.status !== 409)
    throw new Error(`cannot delete UpdateRequest ${ur.metadata.name}: ${deleted.message}`);
}

/** The status an outcome is recorded as. */
function outcomeStatus(ur: UpdateRequest, outcome: Exclude<ProcessOutcome, { state: "Failed" }>) {
  const type = ur.spec.requestType;
  const generated =
    outcome.state === "Completed" && (type === "generate" || type === "cel-generate")
      ? outcome.generated.map((g) => ({
          apiVersion: String(g.apiVersion ?? ""),
          kind: String(g.kind ?? ""),
          ...(g.metadata?.namespace ? { namespace: g.metadata.namespace } : {}),
          name: String(g.metadata?.name ?? ""),
        }))
      : [];
  const status: UpdateRequestStatus = {
    state: outcome.state,
    ...(outcome.message ? { message: outcome.message } : {}),
    ...(generated.length > 0 ? { generatedResources: generated } : {}),
  };
  return status;
}

/** Writes a `Completed` or `Skip` outcome on the status, then deletes a Completed UpdateRequest. */
export async function finishUpdateRequest(
  deps: OutcomeDeps,
  ur: UpdateRequest,
  outcome: Exclude<ProcessOutcome, { state: "Failed" }>,
): Promise<void> {
  const written = await deps.client.update(
    { ...ur, status: outcomeStatus(ur, outcome) } as unknown as KubeObject,
    { subresource: "status" },
  );
  deps.logger.debug(
    { updateRequest: ur.metadata.name, state: outcome.state, message: outcome.message },
    "UpdateRequest processed",
  );
  if (!written.ok) {
    if (written.status === 404 || written.status === 409) return;
    throw new Error(`cannot write the status of UpdateRequest ${ur.metadata.name}: ${written.message}`);
  }
  if (outcome.state === "Completed")
    await removeUpdateRequest(deps, written.value as unknown as UpdateRequest);
}
