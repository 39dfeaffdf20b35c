/** Waiting for the parts of the playground to catch up with each other. */
import type { JsonObject } from "@kyverno-ts/api";
import type { KubeClient } from "@kyverno-ts/kube";

/** Options of `waitFor`. */
export interface WaitOptions {
  /** What is awaited, for the error message. */
  what: string;
  /** Gives up after this long (default 30 s). */
  timeoutMs?: number;
  /** Polling period (default 50 ms). */
  intervalMs?: number;
  signal?: AbortSignal;
}

/** Polls `check` until it holds; throws naming `what` on timeout or abort. */
export async function waitFor(check: () => boolean | Promise<boolean>, options: WaitOptions): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    if (options.signal?.aborted === true) throw new Error(`aborted while waiting for ${options.what}`);
    if (await check()) return;
    if (Date.now() > deadline)
      throw new Error(`gave up waiting for ${options.what} after ${options.timeoutMs ?? 30_000} ms`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50));
  }
}

interface WebhookRule {
  apiGroups?: string[];
  resources?: string[];
}

/** An apiVersion and kind, as objects carry them. */
export interface TypeRef {
  apiVersion: string;
  kind: string;
}

/**
 * True when Kyverno's validating webhook configurations send requests for every one of `types` (by
 * their plural resource name, or a wildcard) to the admission controller. Types the server does not
 * serve count as not covered.
 */
export async function webhooksCover(client: KubeClient, types: readonly TypeRef[]): Promise<boolean> {
  const listed = await client.list<JsonObject>({
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
  });
  if (!listed.ok) return false;
  const rules: WebhookRule[] = listed.value.items.flatMap((config) =>
    ((config.webhooks ?? []) as Array<{ rules?: WebhookRule[] }>).flatMap((w) => w.rules ?? []),
  );
  for (const type of types) {
    const found = await client.resource(type.apiVersion, type.kind);
    if (!found.ok) return false;
    const group = type.apiVersion.includes("/") ? (type.apiVersion.split("/")[0] ?? "") : "";
    const covered = rules.some(
      (r) =>
        (r.apiGroups ?? []).some((g) => g === "*" || g === group) &&
        (r.resources ?? []).some((name) => name === "*" || name === found.value.name),
    );
    if (!covered) return false;
  }
  return true;
}
