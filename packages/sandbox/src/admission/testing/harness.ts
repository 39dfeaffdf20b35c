/**
 * Test-only: one HTTPS webhook server with per-path scripted handlers, mutable webhook
 * configurations and an admission chain wired to them.
 * Not part of the package API (imported by tests beside the code only).
 */
import { type JsonObject, type JsonValue, silentLogger } from "@kyverno-ts/api";
import { type AdmissionChainOptions, createAdmissionChain } from "../chain.js";
import type { PhasedAdmissionChain } from "../types.js";
import { createTestPki, type TestPki } from "./pki.js";
import { type ReviewHandler, startWebhookServer, type TestWebhookServer } from "./webhook-server.js";

/** The DNS name the test server's certificate is valid for (Service `hook` in namespace `webhooks`). */
export const SERVICE_DNS = "hook.webhooks.svc";

/** A running server, the configurations the chain reads, captured log lines, and the chain itself. */
export interface Harness {
  pki: TestPki;
  server: TestWebhookServer;
  routes: Map<string, ReviewHandler>;
  mutating: JsonValue[];
  validating: JsonValue[];
  logs: string[];
  chain: PhasedAdmissionChain;
  /** `clientConfig` for a path on the test server (by URL, with the right caBundle). */
  url(path: string): JsonObject;
  /** Reviews received on a path. */
  reviews(path: string): JsonObject[];
  /** Clears routes, configurations, logs and received reviews. */
  reset(): void;
  close(): Promise<void>;
}

/** Starts the server and builds a chain; `resolveService` maps every Service to the test server. */
export async function startHarness(options: Partial<AdmissionChainOptions> = {}): Promise<Harness> {
  const pki = await createTestPki({ dns: [SERVICE_DNS], ips: ["127.0.0.1"] });
  const routes = new Map<string, ReviewHandler>();
  const server = await startWebhookServer(pki, (review, path) => {
    const handler = routes.get(path.replace(/\?.*$/, ""));
    return handler === undefined
      ? { status: 404, contentType: "text/plain", body: "no route" }
      : handler(review, path);
  });
  const mutating: JsonValue[] = [];
  const validating: JsonValue[] = [];
  const logs: string[] = [];
  const chain = createAdmissionChain({
    webhooks: { mutating: () => mutating, validating: () => validating },
    resolveService: () => server.url,
    logger: { ...silentLogger, warn: (_fields, line) => logs.push(line) },
    ...options,
  });
  return {
    pki,
    server,
    routes,
    mutating,
    validating,
    logs,
    chain,
    url: (path) => ({ url: `${server.url}${path}`, caBundle: pki.caBundle }),
    reviews: (path) =>
      server.received.filter((r) => r.path.replace(/\?.*$/, "") === path).map((r) => r.review),
    reset() {
      routes.clear();
      mutating.length = 0;
      validating.length = 0;
      logs.length = 0;
      server.received.length = 0;
    },
    close: () => server.close(),
  };
}
