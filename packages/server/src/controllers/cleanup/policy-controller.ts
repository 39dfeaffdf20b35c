/**
 * The cleanup policy controller (upstream's `cleanup-controller`): informers on ClusterCleanupPolicy
 * and CleanupPolicy queue each policy; a reconcile runs the policy when its schedule says so (see
 * `execution-time.ts`), writes `status.lastExecutionTime`, and queues the policy again for its next
 * occurrence. A run that failed in part is retried with backoff and its time is not recorded, as
 * upstream. Only the leader runs policies: the caller starts a term on election and ends it on loss.
 */
import type { KubeObject } from "@kyverno-ts/api";
import {
  createInformer,
  createWorkQueue,
  type Informer,
  type KubeClient,
  type WorkQueue,
} from "@kyverno-ts/kube";
import type { ServerClock } from "../../clock.js";
import type { Logger } from "../../logger.js";
import { CLEANUP_API_VERSION, CLEANUP_KINDS, cleanupPolicyKey } from "./cleanup-policy.js";
import { executionDecision, executionTimeText } from "./execution-time.js";
import type { CleanupMetrics } from "./metrics.js";
import type { PolicyRunResult } from "./policy-run.js";

/** The `controller_name` of the queue, as upstream. */
export const CLEANUP_CONTROLLER_NAME = "cleanup-controller";

/** Options of `createPolicyController`. */
export interface PolicyControllerOptions {
  client: KubeClient;
  clock: ServerClock;
  logger: Logger;
  metrics: CleanupMetrics;
  /** Runs one policy (see `runCleanupPolicy`). */
  run: (policy: KubeObject, signal: AbortSignal) => Promise<PolicyRunResult>;
  /** The scheduled policy kinds watched (default: ClusterCleanupPolicy and CleanupPolicy, kyverno.io/v2). */
  kinds?: ReadonlyArray<{ apiVersion: string; kind: string }>;
  /** The `controller_name` of the queue (default `cleanup-controller`). */
  name?: string;
  workers?: number;
}

/** The controller; see `createPolicyController`. */
export interface PolicyController {
  /** Starts the informers; resolves once all have listed. */
  start(): Promise<void>;
  /** Starts running policies (this replica leads) until `signal` aborts. */
  lead(signal: AbortSignal): void;
  /** Ends the term and stops the informers. */
  stop(): Promise<void>;
  /** The cached policy of a key, for tests and the webhook. */
  policies(): KubeObject[];
}

type Key = string;

/** Records a run as `status.lastExecutionTime` (a policy deleted meanwhile is left alone). */
async function writeExecutionTime(
  client: KubeClient,
  apiVersion: string | undefined,
  policy: KubeObject,
  executionTime: number,
  signal: AbortSignal,
): Promise<void> {
  const ref = {
    apiVersion: apiVersion ?? CLEANUP_API_VERSION,
    kind: policy.kind ?? "",
    name: policy.metadata?.name ?? "",
    ...(policy.metadata?.namespace ? { namespace: policy.metadata.namespace } : {}),
  };
  const patched = await client.patch(
    ref,
    { type: "merge", patch: { status: { lastExecutionTime: executionTimeText(executionTime) } } },
    { subresource: "status", signal },
  );
  if (!patched.ok && patched.status !== 404)
    throw new Error(`writing the status of ${ref.kind} ${ref.name}: ${patched.message}`);
}

/** The work queue of one leadership term, its retries counted and logged. */
function createTermQueue(options: PolicyControllerOptions): WorkQueue<Key> {
  const { logger, metrics } = options;
  return createWorkQueue<Key>({
    name: options.name ?? CLEANUP_CONTROLLER_NAME,
    clock: options.clock,
    onReconcile: (e) => metrics.reconcile(e.controller),
    onRequeue: (e) => {
      metrics.requeue(e.controller, e.retries);
      logger.warn({ policy: e.key, retries: e.retries, err: e.error }, "cleanup policy failed; retrying");
    },
    onDrop: (e) => metrics.drop(e.controller),
  });
}

/** Creates the controller (no I/O until `start`). */
export function createPolicyController(options: PolicyControllerOptions): PolicyController {
  const { client, clock, logger } = options;
  const watched = options.kinds ?? CLEANUP_KINDS.map((kind) => ({ apiVersion: CLEANUP_API_VERSION, kind }));
  const informers = new Map<string, { apiVersion: string; informer: Informer<KubeObject> }>(
    watched.map(({ apiVersion, kind }) => [
      kind,
      { apiVersion, informer: createInformer<KubeObject>({ client, apiVersion, kind, clock }) },
    ]),
  );
  let term: { queue: WorkQueue<Key>; done: Promise<void> } | undefined;
  const keyOf = (o: KubeObject) =>
    cleanupPolicyKey(o.kind ?? "", o.metadata?.namespace, o.metadata?.name ?? "");
  for (const { informer } of informers.values()) {
    informer.on("add", (o) => term?.queue.add(keyOf(o)));
    informer.on("update", (o) => term?.queue.add(keyOf(o)));
    informer.on("error", (e) => {
      if (e.source !== "handler")
        logger.warn({ reason: e.failure.reason, message: e.failure.message }, "cleanup policy informer");
    });
  }
  const lookup = (key: Key): KubeObject | undefined => {
    const [kind, ...rest] = key.split("/");
    const informer = informers.get(kind ?? "")?.informer;
    if (informer === undefined) return undefined;
    return rest.length === 2 ? informer.get(rest[0], rest[1] ?? "") : informer.get(undefined, rest[0] ?? "");
  };

  const writeStatus = (policy: KubeObject, executionTime: number, signal: AbortSignal) =>
    writeExecutionTime(client, informers.get(policy.kind ?? "")?.apiVersion, policy, executionTime, signal);

  const reconcile = async (key: Key, signal: AbortSignal) => {
    const policy = lookup(key);
    if (policy === undefined || policy.metadata?.deletionTimestamp) return undefined;
    const decision = executionDecision(policy, clock.now());
    if (decision.type === "invalid") {
      logger.error({ policy: key, message: decision.message }, "failed to compute the policy execution time");
      return undefined;
    }
    if (decision.type === "wait") return { requeueAfterMs: decision.at - clock.now() };
    const started = clock.monotonic();
    const outcome = await options.run(policy, signal);
    logger.info(
      {
        policy: key,
        deleted: outcome.deleted,
        errors: outcome.errors.length,
        ms: Math.round(clock.monotonic() - started),
      },
      "cleanup policy executed",
    );
    if (outcome.errors.length > 0) return { error: new Error(outcome.errors.join("; ")) };
    await writeStatus(policy, decision.executionTime, signal);
    return decision.next === undefined
      ? undefined
      : { requeueAfterMs: Math.max(1, decision.next - clock.now()) };
  };

  let stopping: Promise<void> = Promise.resolve();
  const endTerm = (): Promise<void> => {
    const current = term;
    term = undefined;
    if (current !== undefined) stopping = current.queue.shutdown({ drain: false }).then(() => current.done);
    return stopping;
  };

  return {
    async start() {
      await Promise.all([...informers.values()].map((i) => i.informer.start()));
    },
    lead(signal) {
      if (term !== undefined || signal.aborted) return;
      const queue = createTermQueue(options);
      const done = queue.process(options.workers ?? 1, (key, ctx) => reconcile(key, ctx.signal));
      term = { queue, done };
      for (const { informer } of informers.values())
        for (const policy of informer.list()) queue.add(keyOf(policy));
      signal.addEventListener("abort", () => void endTerm(), { once: true });
    },
    async stop() {
      await endTerm();
      await Promise.all([...informers.values()].map((i) => i.informer.stop()));
    },
    policies: () => [...informers.values()].flatMap((i) => i.informer.list()),
  };
}
