/**
 * The REST API server (fastify): health and readiness, optional basic auth over everything but
 * the probes, `/metrics` when metrics are given, and the v1 / v2 routes. Query parameters are
 * validated by schema (a 400 names the parameter); responses are serialised by schema.
 */
import { timingSafeEqual } from "node:crypto";
import Fastify, { type FastifyInstance, type FastifyRequest } from "fastify";
import { isReporterError } from "../errors.js";
import { type Logger, silentLogger } from "../logger.js";
import type { ReporterMetrics } from "../metrics/metrics.js";
import type { ReportStore } from "../store/types.js";
import type { HealthStatus, Target } from "./contract.js";
import type { RouteContext } from "./route-context.js";
import { type PolicyDetailsSource, registerPolicyDetailsRoutes } from "./routes-policy-details.js";
import { registerV1Routes } from "./routes-v1.js";
import { registerV2Routes } from "./routes-v2.js";
import { registerV2ResourceRoutes } from "./routes-v2-resource.js";
import { registerV2ScopedRoutes } from "./routes-v2-scoped.js";
import { responses } from "./schemas.js";

/** Options of {@link createApiServer}. */
export interface ApiServerOptions {
  store: ReportStore;
  logger?: Logger;
  /** `basicAuth`: when set, every route except `/healthz` and `/ready` requires these credentials. */
  basicAuth?: { username: string; password: string };
  /** Serves `/metrics` from these metrics. */
  metrics?: ReporterMetrics;
  /** The configured notification targets, for `/v1/targets` and `/v2/targets`. */
  targets?: () => readonly Target[];
  /** Kyverno policy details for `/v2/policy-details` (the policy catalog); without it they answer 404 saying so. */
  policies?: PolicyDetailsSource;
  /** Starts ready (for tests and tools); default false: `/ready` is 503 until `setReady(true)`. */
  ready?: boolean;
  /** Once ready, a reason to answer `/ready` with 503 anyway (the store is behind the cluster). */
  notReady?: () => string | undefined;
  /** Adds hooks and routes before the app is ready (the dashboard and its login: `registerUi`). */
  setup?: (app: FastifyInstance) => Promise<unknown>;
}

/** The API server. */
export interface ApiServer {
  /** The fastify instance (`inject` in tests). */
  readonly app: FastifyInstance;
  /** Marks the initial sync as done (`/ready` answers 200) or not. */
  setReady(ready: boolean): void;
  /** Starts listening; resolves to the address. */
  listen(options: { port: number; host?: string }): Promise<string>;
  close(): Promise<void>;
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function authorized(request: FastifyRequest, auth: { username: string; password: string }): boolean {
  const header = request.headers.authorization;
  if (!header?.startsWith("Basic ")) return false;
  const decoded = Buffer.from(header.slice(6), "base64").toString("utf8");
  const at = decoded.indexOf(":");
  if (at < 0) return false;
  // Evaluate both comparisons: no early exit revealing which part was wrong.
  const user = sameSecret(decoded.slice(0, at), auth.username);
  const password = sameSecret(decoded.slice(at + 1), auth.password);
  return user && password;
}

/** Accepts `name[]=value` as `name=value` (both spellings are in use by clients). */
function normalizeArrayKeys(query: unknown): void {
  if (typeof query !== "object" || query === null) return;
  const q = query as Record<string, unknown>;
  for (const key of Object.keys(q)) {
    if (!key.endsWith("[]")) continue;
    const base = key.slice(0, -2);
    const values = ([] as unknown[]).concat(q[base] ?? [], q[key]);
    q[base] = values;
    delete q[key];
  }
}

/** ` (ECONNREFUSED)`: the system error code of a failure or its cause, when there is one. */
function errorCode(err: unknown): string {
  for (let e: unknown = err, depth = 0; typeof e === "object" && e !== null && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^E[A-Z0-9_]+$/.test(code)) return ` (${code})`;
    e = (e as { cause?: unknown }).cause;
  }
  return "";
}

/** Creates the API server (not listening yet). */
export async function createApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const logger = options.logger ?? silentLogger;
  // Path parameters up to the schemas' limits (Kubernetes names reach 253 characters; fastify's default is 100).
  const app = Fastify({
    logger: false,
    routerOptions: { maxParamLength: 1024 },
    ajv: { customOptions: { coerceTypes: "array", allErrors: false } },
  });
  let ready = options.ready ?? false;
  const open = new Set(["/healthz", "/ready"]);

  app.addHook("onRequest", async (request, reply) => {
    normalizeArrayKeys(request.query);
    if (!options.basicAuth || open.has(request.routeOptions.url ?? "")) return;
    if (!authorized(request, options.basicAuth)) {
      reply.header("www-authenticate", 'Basic realm="policy-reporter"');
      return reply.code(401).send({ statusCode: 401, error: "Unauthorized", message: "invalid credentials" });
    }
  });

  // ajv lets `Infinity` through `integer` and `maximum` (coerced from the query string): refuse it
  // here, as the 400 a schema error answers, before a query hands it to the database.
  app.addHook("preHandler", async (request, reply) => {
    const query = request.query;
    if (typeof query !== "object" || query === null) return;
    for (const [key, value] of Object.entries(query)) {
      const values: unknown[] = Array.isArray(value) ? value : [value];
      if (values.some((v) => typeof v === "number" && !Number.isFinite(v))) {
        const message = `querystring/${key} must be a finite number`;
        return reply
          .code(400)
          .send({ statusCode: 400, code: "FST_ERR_VALIDATION", error: "Bad Request", message });
      }
    }
  });

  app.setErrorHandler((error: unknown, request, reply) => {
    const e = (typeof error === "object" && error !== null ? error : {}) as {
      statusCode?: unknown;
      code?: unknown;
      message?: unknown;
    };
    const message = typeof e.message === "string" ? e.message : String(error);
    const status = typeof e.statusCode === "number" ? e.statusCode : 500;
    if (status < 500) {
      const code = typeof e.code === "string" ? e.code : undefined;
      const reason = status === 400 ? "Bad Request" : status === 404 ? "Not Found" : "Client Error";
      return reply
        .code(status)
        .send({ statusCode: status, ...(code ? { code } : {}), error: reason, message });
    }
    const code = isReporterError(error) ? error.code : "INTERNAL";
    logger.error({ code, url: request.url, err: message }, "API request failed");
    return reply.code(500).send({ statusCode: 500, code, error: "Internal Server Error", message });
  });

  app.get(
    "/healthz",
    { schema: { response: { 200: responses.health, 503: responses.health } } },
    async (_req, reply) => {
      try {
        await options.store.ping();
        return { status: "ok" } satisfies HealthStatus;
      } catch (err) {
        // Which dependency failed, not where it is: the driver's message (host, port, user) stays in the log.
        logger.warn({ err: String(err) }, "health check: database not reachable");
        const error = `database (${options.store.dialect}) not reachable${errorCode(err)}`;
        return reply.code(503).send({ status: "unavailable", error } satisfies HealthStatus);
      }
    },
  );
  app.get(
    "/ready",
    { schema: { response: { 200: responses.health, 503: responses.health } } },
    async (_req, reply) => {
      const reason = ready ? options.notReady?.() : "initial sync not finished";
      return reason === undefined
        ? ({ status: "ok" } satisfies HealthStatus)
        : reply.code(503).send({ status: "unavailable", error: reason } satisfies HealthStatus);
    },
  );
  const metrics = options.metrics;
  if (metrics) {
    app.get("/metrics", async (_req, reply) =>
      reply.type(metrics.registry.contentType).send(await metrics.expose()),
    );
  }

  const context: RouteContext = { store: options.store, targets: options.targets ?? (() => []) };
  registerV1Routes(app, context);
  registerV2Routes(app, context);
  registerV2ScopedRoutes(app, context);
  registerV2ResourceRoutes(app, context);
  registerPolicyDetailsRoutes(app, options.policies);
  await options.setup?.(app);
  await app.ready();

  return {
    app,
    setReady(value) {
      ready = value;
    },
    listen: ({ port, host }) => app.listen({ port, host: host ?? "0.0.0.0" }),
    close: () => app.close(),
  };
}
