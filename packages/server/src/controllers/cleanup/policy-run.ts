/**
 * One execution of a cleanup policy, as upstream's `cleanup`: for each kind the policy matches, list
 * the resources (in the policy's namespace for a CleanupPolicy), keep those match / exclude select
 * and whose conditions pass (`target` is the resource; context entries are loaded through the
 * controller's client), and delete them with the policy's `deletionPropagationPolicy`. Each deletion
 * and each failure is counted and emitted as an Event; failures are returned so the caller retries.
 */
import { type JsonValue, type KubeObject, loadPolicy } from "@kyverno-ts/api";
import type { CompiledPolicy, Engine } from "@kyverno-ts/engine";
import type { KubeClient } from "@kyverno-ts/kube";
import type { KindResolver } from "../../cluster-state/kinds.js";
import type { ScanContext } from "../../external-data/scan-context.js";
import type { Logger } from "../../logger.js";
import { cleanupSpecOf, matchedKinds, syntheticPolicy } from "./cleanup-policy.js";
import type { CleanupEvents } from "./events.js";
import type { CleanupMetrics, CleanupOutcomeLabels } from "./metrics.js";

/** What a run needs. */
export interface PolicyRunDeps {
  client: KubeClient;
  engine: Engine;
  context: ScanContext;
  kinds: Pick<KindResolver, "watchable">;
  namespaceLabels: (namespace: string) => Record<string, string> | undefined;
  metrics: CleanupMetrics;
  events: CleanupEvents;
  logger: Logger;
}

/** Outcome of a run. */
export interface PolicyRunResult {
  deleted: number;
  /** One line per failure (listing a kind, evaluating or deleting a resource). */
  errors: string[];
}

/** Where a kind of the policy is listed: its apiVersion and whether it is namespaced. */
async function locate(
  deps: PolicyRunDeps,
  selector: string,
  signal: AbortSignal,
): Promise<{ apiVersion: string; kind: string; namespaced: boolean } | string> {
  if (selector.includes("*")) return `kind ${selector}: wildcard kinds are not supported by cleanup policies`;
  const parts = selector.split("/");
  const kind = parts[parts.length - 1] ?? selector;
  if (parts.length === 1) {
    const found = await deps.kinds.watchable(kind, signal);
    return found.ok ? found.value : `kind ${selector}: ${found.message}`;
  }
  const apiVersion = parts.slice(0, -1).join("/");
  const info = await deps.client.resource(apiVersion, kind, signal);
  return info.ok
    ? { apiVersion, kind, namespaced: info.value.namespaced }
    : `kind ${selector}: ${info.message}`;
}

/** Compiles the policy as the engine evaluates it; a message when it cannot be. */
export function compileCleanupPolicy(engine: Engine, policy: KubeObject): CompiledPolicy | string {
  const loaded = loadPolicy(syntheticPolicy(policy) as JsonValue, { file: policy.metadata?.name ?? "" });
  if (!loaded.ok) return loaded.errors.map((e) => `${e.path}: ${e.message}`).join("; ");
  const compiled = engine.compile(loaded.value);
  return compiled.ok ? compiled.policy : compiled.issues.map((i) => `${i.path}: ${i.message}`).join("; ");
}

/** Runs `policy` once. */
export async function runCleanupPolicy(
  deps: PolicyRunDeps,
  policy: KubeObject,
  signal: AbortSignal,
): Promise<PolicyRunResult> {
  const { client, logger, metrics, events } = deps;
  const spec = cleanupSpecOf(policy);
  const policyNamespace = policy.kind === "CleanupPolicy" ? (policy.metadata?.namespace ?? "") : "";
  const name = policy.metadata?.name ?? "";
  const labels = (resourceKind: string, resourceNamespace: string): CleanupOutcomeLabels => ({
    policyType: policyNamespace ? "namespaced" : "cluster",
    policyNamespace: policyNamespace || "-",
    policyName: name,
    resourceKind,
    resourceNamespace,
  });
  const result: PolicyRunResult = { deleted: 0, errors: [] };
  const compiled = compileCleanupPolicy(deps.engine, policy);
  if (typeof compiled === "string") {
    result.errors.push(`the policy cannot be evaluated: ${compiled}`);
    return result;
  }
  deps.context.clear();
  for (const selector of matchedKinds(spec)) {
    if (signal.aborted) break;
    const where = await locate(deps, selector, signal);
    if (typeof where === "string") {
      metrics.error(labels(selector, ""));
      result.errors.push(where);
      continue;
    }
    if (policyNamespace && !where.namespaced) continue;
    const listed = await client.list({
      apiVersion: where.apiVersion,
      kind: where.kind,
      ...(policyNamespace ? { namespace: policyNamespace } : {}),
      signal,
    });
    if (!listed.ok) {
      metrics.error(labels(where.kind, ""));
      result.errors.push(`listing ${where.kind}: ${listed.message}`);
      continue;
    }
    for (const resource of listed.value.items) {
      if (signal.aborted) break;
      const namespace = resource.metadata?.namespace ?? "";
      const id = { kind: where.kind, namespace, name: resource.metadata?.name ?? "" };
      const response = await deps.context.evaluate(
        () =>
          deps.engine.validate(compiled, {
            resource,
            ...(namespace ? { namespaceLabels: deps.namespaceLabels(namespace) ?? {} } : {}),
          }),
        signal,
      );
      const rule = response.rules[0];
      if (rule === undefined || rule.status === "skip" || rule.status === "pass") continue;
      if (rule.status === "error" || rule.status === "warn") {
        logger.warn({ policy: name, ...id, message: rule.message }, "failed to check condition");
        result.errors.push(`${where.kind} ${namespace}/${id.name}: ${rule.message}`);
        continue;
      }
      logger.info({ policy: name, ...id }, "resource matched, it will be deleted...");
      const deleted = await client.delete(
        {
          apiVersion: where.apiVersion,
          kind: where.kind,
          name: id.name,
          ...(namespace ? { namespace } : {}),
        },
        {
          ...(spec.deletionPropagationPolicy ? { propagationPolicy: spec.deletionPropagationPolicy } : {}),
          signal,
        },
      );
      if (!deleted.ok && deleted.status === 404) continue;
      if (deleted.ok) {
        result.deleted++;
        metrics.deleted(labels(where.kind, namespace));
        events.cleanedUp(policy, resource, undefined);
      } else {
        metrics.error(labels(where.kind, namespace));
        logger.error(
          { policy: name, ...id, reason: deleted.reason, message: deleted.message },
          "failed to delete resource",
        );
        result.errors.push(`deleting ${where.kind} ${namespace}/${id.name}: ${deleted.message}`);
        events.cleanedUp(policy, resource, deleted.message);
      }
    }
  }
  return result;
}
