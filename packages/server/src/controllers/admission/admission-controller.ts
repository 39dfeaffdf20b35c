/**
 * The admission controller in standalone mode: the core (`admission-core.ts`) fed from policy files
 * and served (`serve.ts`). The cluster mode feeds the same core from informers (`cluster/`).
 */
import type { CelPolicy, Policy, PolicyException } from "@kyverno-ts/api";
import { celPolicyKey } from "../../policycache/cel-policy-store.js";
import { type PolicyCache, type PolicyStatus, policyKey } from "../../policycache/policy-cache.js";
import type { TlsMaterial } from "../../webhooks/server.js";
import { type AdmissionCoreOptions, createAdmissionCore } from "./admission-core.js";
import { serveAdmission } from "./serve.js";

/** Options of `startAdmissionController`. */
export interface AdmissionControllerOptions extends AdmissionCoreOptions {
  policies: readonly Policy[];
  exceptions: readonly PolicyException[];
  /** `policies.kyverno.io` policies, compiled into the CEL store (standalone mode). */
  celPolicies?: readonly CelPolicy[];
  tls: TlsMaterial;
  host?: string;
  /** Webhook HTTPS port (0 picks a free one). */
  port: number;
  /** Metrics HTTP port (0 picks a free one). */
  metricsPort: number;
}

/** A running admission controller. */
export interface AdmissionController {
  readonly port: number;
  readonly metricsPort: number;
  readonly cache: PolicyCache;
  /** Status of every policy given at start, by key (not-ready ones carry compile messages). */
  readonly statuses: ReadonlyMap<string, PolicyStatus>;
  setCertificate(certPem: string, keyPem: string): void;
  close(): Promise<void>;
}

/** Builds and starts the controller; resolves once both servers listen. */
export async function startAdmissionController(
  options: AdmissionControllerOptions,
): Promise<AdmissionController> {
  const core = createAdmissionCore(options);
  const statuses = new Map<string, PolicyStatus>();
  for (const policy of options.policies) statuses.set(policyKey(policy), core.cache.set(policy));
  core.cache.setExceptions(options.exceptions);
  for (const policy of options.celPolicies ?? []) {
    const status = core.celPolicies.set(policy);
    const key = celPolicyKey({
      kind: policy.kind,
      name: policy.metadata.name,
      namespace: policy.metadata.namespace,
    });
    statuses.set(key, {
      ready: status.ready,
      message: status.message,
      autogenRules: [],
      issues: status.issues,
    });
  }
  const servers = await serveAdmission(core, {
    tls: options.tls,
    clock: options.clock,
    logger: options.logger,
    ...(options.host !== undefined ? { host: options.host } : {}),
    port: options.port,
    metricsPort: options.metricsPort,
  });
  return {
    port: servers.port,
    metricsPort: servers.metricsPort,
    cache: core.cache,
    statuses,
    setCertificate: (cert, key) => servers.setCertificate(cert, key),
    close: () => servers.close(),
  };
}
