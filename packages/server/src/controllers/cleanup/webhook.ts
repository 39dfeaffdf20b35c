/**
 * The cleanup controller's webhooks, as upstream registers them: `/validate` (configuration
 * `kyverno-cleanup-validating-webhook-configuration`, failure policy Fail) rejects an invalid
 * CleanupPolicy / ClusterCleanupPolicy with every problem and its field path; `/verifyttl`
 * (configuration `kyverno-ttl-validating-webhook-configuration`, objects with the TTL label only,
 * failure policy Ignore) admits every object and warns when its `cleanup.kyverno.io/ttl` value
 * cannot be read or the controller may not delete its kind. The HTTPS server (fastify) serves both
 * and the health probes; its certificate can be replaced while serving.
 */
import { createSecureContext, type Server as TlsServer } from "node:tls";
import type { KubeObject } from "@kyverno-ts/api";
import { fastify } from "fastify";
import type { Logger } from "../../logger.js";
import { readBoundedBody } from "../../webhooks/body.js";
import {
  type AdmissionReviewResponse,
  allow,
  deny,
  parseAdmissionReview,
  serializeReview,
  statusBody,
} from "../admission/review.js";
import type { TlsData } from "../certificates/tls-secrets.js";
import type { WebhookConfigurationJson, WebhookEndpoint } from "../webhooks/webhook-configs.js";
import type { LabelSelectorJson } from "../webhooks/webhook-json.js";
import { CLEANUP_API_VERSIONS, CLEANUP_GROUP, isCleanupKind } from "./cleanup-policy.js";
import { TTL_LABEL, ttlDeletionTime } from "./ttl.js";

/** Upstream's configuration names and paths. */
export const CLEANUP_WEBHOOKS = {
  policy: { configuration: "kyverno-cleanup-validating-webhook-configuration", path: "/validate" },
  ttl: { configuration: "kyverno-ttl-validating-webhook-configuration", path: "/verifyttl" },
} as const;

/** What the handlers need from the controller. */
export interface CleanupWebhookDeps {
  /** Every problem of a cleanup policy (empty: valid). */
  validatePolicy(policy: KubeObject): Promise<string[]>;
  /** Whether the TTL controller watches (may delete) objects of this group and kind; undefined: unknown yet. */
  deletable(group: string, kind: string): boolean | undefined;
  /** The controller's clock, in epoch milliseconds. */
  now(): number;
  logger: Logger;
}

/** Answers a `/validate` review. */
export async function validatePolicyReview(
  deps: CleanupWebhookDeps,
  body: string,
): Promise<AdmissionReviewResponse | string> {
  const parsed = parseAdmissionReview(body);
  if (!parsed.ok) return parsed.uid === undefined ? parsed.message : deny(parsed.uid, parsed.message, 400);
  const { request, object } = parsed.review;
  if (request.operation === "DELETE" || object === undefined || !isCleanupKind(object.kind))
    return allow(request.uid);
  const problems = await deps.validatePolicy(object);
  return problems.length === 0 ? allow(request.uid) : deny(request.uid, problems.join("; "));
}

/** Answers a `/verifyttl` review: always allowed, with upstream's warning for an unreadable value. */
export function verifyTtlReview(deps: CleanupWebhookDeps, body: string): AdmissionReviewResponse | string {
  const parsed = parseAdmissionReview(body);
  if (!parsed.ok) return parsed.uid === undefined ? parsed.message : allow(parsed.uid);
  const { request, object } = parsed.review;
  const value = object?.metadata?.labels?.[TTL_LABEL];
  if (request.operation === "DELETE" || object === undefined || value === undefined)
    return allow(request.uid);
  const warnings: string[] = [];
  const check = ttlDeletionTime(value, deps.now());
  if (!check.ok)
    warnings.push(`${TTL_LABEL} label value cannot be parsed as any recognizable format (${check.message})`);
  const deletable = deps.deletable(request.kind.group, request.kind.kind);
  if (deletable === false)
    warnings.push(
      `cleanup controller has no permission to delete kind ${request.kind.kind}: the ${TTL_LABEL} label has no effect`,
    );
  return allow(request.uid, warnings);
}

/** The two ValidatingWebhookConfigurations. */
export function cleanupWebhookConfigurations(inputs: {
  endpoint: WebhookEndpoint;
  caBundle: string;
  timeoutSeconds: number;
  labels: Record<string, string>;
}): WebhookConfigurationJson[] {
  const clientConfig = (path: string) =>
    "url" in inputs.endpoint
      ? { url: `${inputs.endpoint.url}${path}`, caBundle: inputs.caBundle }
      : { service: { ...inputs.endpoint.service, path }, caBundle: inputs.caBundle };
  const name =
    "service" in inputs.endpoint
      ? `${inputs.endpoint.service.name}.${inputs.endpoint.service.namespace}.svc`
      : "kyverno-cleanup-controller.kyverno.svc";
  const none: LabelSelectorJson = {};
  const webhook = (
    path: string,
    rules: WebhookConfigurationJson["webhooks"][number]["rules"],
    failurePolicy: "Fail" | "Ignore",
    objectSelector: LabelSelectorJson,
  ) => ({
    name,
    clientConfig: clientConfig(path),
    rules,
    failurePolicy,
    matchPolicy: "Equivalent" as const,
    namespaceSelector: none,
    objectSelector,
    sideEffects: "None" as const,
    timeoutSeconds: inputs.timeoutSeconds,
    admissionReviewVersions: ["v1"],
  });
  const config = (
    configuration: string,
    hook: WebhookConfigurationJson["webhooks"][number],
  ): WebhookConfigurationJson => ({
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name: configuration, labels: inputs.labels },
    webhooks: [hook],
  });
  return [
    config(
      CLEANUP_WEBHOOKS.policy.configuration,
      webhook(
        CLEANUP_WEBHOOKS.policy.path,
        [
          {
            apiGroups: [CLEANUP_GROUP],
            apiVersions: [...CLEANUP_API_VERSIONS],
            resources: ["cleanuppolicies", "clustercleanuppolicies"],
            operations: ["CREATE", "UPDATE"],
            scope: "*",
          },
        ],
        "Fail",
        none,
      ),
    ),
    config(
      CLEANUP_WEBHOOKS.ttl.configuration,
      webhook(
        CLEANUP_WEBHOOKS.ttl.path,
        [
          {
            apiGroups: ["*"],
            apiVersions: ["*"],
            resources: ["*"],
            operations: ["CREATE", "UPDATE"],
            scope: "*",
          },
        ],
        "Ignore",
        { matchExpressions: [{ key: TTL_LABEL, operator: "Exists" }] },
      ),
    ),
  ];
}

/** The HTTPS server of the webhooks and probes. */
export interface CleanupWebhookServer {
  listen(options: { host?: string; port: number }): Promise<{ port: number }>;
  setCertificate(pair: TlsData): void;
  close(): Promise<void>;
}

/** Creates the server (not yet listening). */
export function createCleanupWebhookServer(options: {
  deps: CleanupWebhookDeps;
  tls: TlsData;
  ready: () => boolean;
}): CleanupWebhookServer {
  const { deps } = options;
  const secure = (pair: TlsData) => ({
    cert: pair.certPem,
    key: pair.keyPem,
    minVersion: "TLSv1.2" as const,
  });
  createSecureContext(secure(options.tls));
  const app = fastify({ https: secure(options.tls), logger: false, return503OnClosing: false });
  let closing = false;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", (_request, payload, done) => {
    readBoundedBody(payload, 3 * 1024 * 1024, (error, body) => {
      if (error !== null || body === undefined || !body.ok)
        done(error ?? new Error("request body too large"), undefined);
      else done(null, body.text);
    });
  });
  const answer = (result: AdmissionReviewResponse | string) =>
    typeof result === "string"
      ? { code: 400, text: JSON.stringify(statusBody(result).body) }
      : { code: 200, text: serializeReview(result) };
  app.post(CLEANUP_WEBHOOKS.policy.path, async (request, reply) => {
    const out = answer(await validatePolicyReview(deps, String(request.body ?? "")));
    return reply.code(out.code).header("content-type", "application/json").send(out.text);
  });
  app.post(CLEANUP_WEBHOOKS.ttl.path, async (request, reply) => {
    const out = answer(verifyTtlReview(deps, String(request.body ?? "")));
    return reply.code(out.code).header("content-type", "application/json").send(out.text);
  });
  app.get("/health/liveness", (_request, reply) => reply.code(200).send("ok"));
  app.get("/health/readiness", (_request, reply) => {
    const ready = !closing && options.ready();
    return reply.code(ready ? 200 : 503).send(ready ? "ok" : "not ready");
  });
  return {
    async listen({ host = "0.0.0.0", port }) {
      await app.listen({ host, port });
      const address = app.server.address();
      return { port: typeof address === "object" && address !== null ? address.port : port };
    },
    setCertificate(pair) {
      const next = secure(pair);
      createSecureContext(next);
      (app.server as TlsServer).setSecureContext(next);
      deps.logger.info({}, "serving certificate replaced");
    },
    close() {
      closing = true;
      return app.close();
    },
  };
}
