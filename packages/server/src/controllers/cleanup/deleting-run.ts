/**
 * One execution of a DeletingPolicy / NamespacedDeletingPolicy (`policies.kyverno.io`, CEL): for
 * each resource its `matchConstraints.resourceRules` name, list the objects (in the policy's
 * namespace for a NamespacedDeletingPolicy), let the CEL engine decide (match constraints, exclude
 * rules, namespace and object selectors, `conditions`: `pass` means delete) and delete them with
 * `deletionPropagationPolicy`. Counted in `kyverno_deleting_controller_*` and emitted as Events;
 * failures are returned so the caller retries. Wildcard groups, versions or resources are reported
 * as unsupported, not expanded.
 */
import { type JsonValue, type KubeObject, loadCelPolicy, type ResourceRule } from "@kyverno-ts/api";
import type { CelEngine } from "@kyverno-ts/engine";
import { builtinKindOf, type KubeClient } from "@kyverno-ts/kube";
import type { Logger } from "../../logger.js";
import type { CleanupEvents } from "./events.js";
import type { CleanupMetrics, DeletingOutcomeLabels } from "./metrics.js";
import type { PolicyRunResult } from "./policy-run.js";

/** The served version the controller watches (the CRDs' storage version). */
export const DELETING_API_VERSION = "policies.kyverno.io/v1beta1";
/** The two kinds. */
export const DELETING_KINDS = ["DeletingPolicy", "NamespacedDeletingPolicy"] as const;

/** What a run needs. */
export interface DeletingRunDeps {
  client: KubeClient;
  cel: CelEngine;
  metrics: CleanupMetrics;
  events: CleanupEvents;
  logger: Logger;
}

interface Target {
  apiVersion: string;
  kind: string;
  resource: string;
}

/** The group/version/resource triples of the rules, each resolved to a kind, or why not. */
async function targets(client: KubeClient, rules: readonly ResourceRule[], signal: AbortSignal) {
  const found: Target[] = [];
  const problems: string[] = [];
  let crds: KubeObject[] | undefined;
  for (const rule of rules)
    for (const group of rule.apiGroups ?? [])
      for (const version of rule.apiVersions ?? [])
        for (const resource of rule.resources ?? []) {
          if ([group, version, resource].some((p) => p.includes("*"))) {
            problems.push(
              `resourceRules ${group}/${version}/${resource}: wildcards are not supported by DeletingPolicies`,
            );
            continue;
          }
          if (resource.includes("/")) continue;
          const apiVersion = group === "" ? version : `${group}/${version}`;
          let kind = builtinKindOf(group, resource);
          if (kind === undefined) {
            if (crds === undefined) {
              const listed = await client.list({
                apiVersion: "apiextensions.k8s.io/v1",
                kind: "CustomResourceDefinition",
                signal,
              });
              crds = listed.ok ? listed.value.items : [];
            }
            const crd = crds.find((c) => {
              const spec = c.spec as { group?: string; names?: { plural?: string } } | undefined;
              return spec?.group === group && spec.names?.plural === resource;
            });
            kind = (crd?.spec as { names?: { kind?: string } } | undefined)?.names?.kind;
          }
          if (kind === undefined) problems.push(`resourceRules ${apiVersion}/${resource}: no such resource`);
          else found.push({ apiVersion, kind, resource });
        }
  return { found, problems };
}

/** Runs a DeletingPolicy once. */
export async function runDeletingPolicy(
  deps: DeletingRunDeps,
  policy: KubeObject,
  signal: AbortSignal,
): Promise<PolicyRunResult> {
  const { client, metrics, events, logger } = deps;
  const result: PolicyRunResult = { deleted: 0, errors: [] };
  const name = policy.metadata?.name ?? "";
  const namespaced = policy.kind === "NamespacedDeletingPolicy";
  const policyNamespace = namespaced ? (policy.metadata?.namespace ?? "") : "";
  const labels = (resource: string): DeletingOutcomeLabels => ({
    policyType: namespaced ? "NamespacedDeletingPolicy" : "DeletingPolicy",
    policyNamespace,
    policyName: name,
    resource,
  });
  const loaded = loadCelPolicy(policy as unknown as JsonValue, { file: `${policy.kind}/${name}` });
  if (!loaded.ok) {
    result.errors.push(
      `the policy cannot be loaded: ${loaded.errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`,
    );
    return result;
  }
  const compiled = deps.cel.compile(loaded.value);
  if (!compiled.ok) {
    result.errors.push(
      `the policy cannot be compiled: ${compiled.issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
    );
    return result;
  }
  const spec = policy.spec as {
    matchConstraints?: { resourceRules?: ResourceRule[] };
    deletionPropagationPolicy?: string;
  };
  const { found, problems } = await targets(client, spec.matchConstraints?.resourceRules ?? [], signal);
  for (const problem of problems) {
    metrics.deletingError(labels(""));
    result.errors.push(problem);
  }
  const propagation = spec.deletionPropagationPolicy as "Foreground" | "Background" | "Orphan" | undefined;
  for (const target of found) {
    if (signal.aborted) break;
    const listed = await client.list({
      apiVersion: target.apiVersion,
      kind: target.kind,
      ...(policyNamespace ? { namespace: policyNamespace } : {}),
      signal,
    });
    if (!listed.ok) {
      metrics.deletingError(labels(target.resource));
      result.errors.push(`listing ${target.resource}: ${listed.message}`);
      continue;
    }
    for (const object of listed.value.items) {
      if (signal.aborted) break;
      const rule = deps.cel.evaluateDeletion(compiled.policy, object).rules[0];
      if (rule === undefined || rule.status === "skip") continue;
      const namespace = object.metadata?.namespace ?? "";
      const id = { kind: target.kind, namespace, name: object.metadata?.name ?? "" };
      if (rule.status !== "pass") {
        metrics.deletingError(labels(target.resource));
        logger.warn({ policy: name, ...id, message: rule.message }, "failed to evaluate the deleting policy");
        result.errors.push(`${target.kind} ${namespace}/${id.name}: ${rule.message}`);
        continue;
      }
      const deleted = await client.delete(
        {
          apiVersion: target.apiVersion,
          kind: target.kind,
          name: id.name,
          ...(namespace ? { namespace } : {}),
        },
        { ...(propagation ? { propagationPolicy: propagation } : {}), signal },
      );
      if (!deleted.ok && deleted.status === 404) continue;
      if (deleted.ok) {
        result.deleted++;
        metrics.deletingDeleted(labels(target.resource));
        events.cleanedUp(policy, object, undefined);
      } else {
        metrics.deletingError(labels(target.resource));
        result.errors.push(`deleting ${target.kind} ${namespace}/${id.name}: ${deleted.message}`);
        events.cleanedUp(policy, object, deleted.message);
      }
    }
  }
  return result;
}
