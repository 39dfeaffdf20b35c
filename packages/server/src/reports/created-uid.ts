/**
 * The uid of an object the mutating webhook admitted on CREATE. The API server gives an object its
 * uid after mutating admission, so the mutating webhook's results name the object without one; the
 * consumer (the ephemeral report publisher, the in-process reports controller) looks the object up
 * once it is stored, by namespace and name, and hands the results on with the uid.
 */
import type { KubeObject } from "@kyverno-ts/api";
import type { KubeClient } from "@kyverno-ts/kube";
import type { AdmissionResult } from "../controllers/admission/results.js";

/** Pauses between lookups (milliseconds): the object is usually stored within the first. */
export const CREATED_UID_DELAYS: readonly number[] = [100, 500, 2000];

/** Whether a result waits for its object's uid (a CREATE's mutating webhook results, with a name). */
export function awaitsUid(result: AdmissionResult): boolean {
  return result.resource.uid === "" && result.resource.name !== "" && result.operation === "CREATE";
}

/**
 * Looks the created object up (after each of `delays`) and answers the result with its uid, or
 * undefined when it was not stored (the request failed later in the admission chain) or is a newer
 * object of the same name created after the request.
 */
export async function resolveCreatedUid(
  client: KubeClient,
  result: AdmissionResult,
  options: { delays?: readonly number[]; sleep?: (ms: number) => Promise<void> } = {},
): Promise<AdmissionResult | undefined> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const { apiVersion, kind, namespace, name } = result.resource;
  for (const delay of options.delays ?? CREATED_UID_DELAYS) {
    await sleep(delay);
    const got = await client.get<KubeObject>({ apiVersion, kind, name, ...(namespace ? { namespace } : {}) });
    if (!got.ok) {
      if (got.status === 404) continue;
      return undefined;
    }
    const uid = got.value.metadata?.uid;
    const created = Date.parse(String(got.value.metadata?.creationTimestamp ?? ""));
    // Second precision: an object created more than a second before the request is another one.
    if (typeof uid !== "string" || uid === "" || created < result.timestamp - 1000) return undefined;
    return { ...result, resource: { ...result.resource, uid } };
  }
  return undefined;
}
