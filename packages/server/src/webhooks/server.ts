/**
 * The HTTPS webhook server (fastify): the resource webhooks split by failure policy as upstream
 * (`/validate/fail`, `/validate/ignore`, `/mutate/fail`, `/mutate/ignore`, plus `/validate` and
 * `/mutate` for every policy), the policy and exception validation webhooks and the health probes.
 * The TLS certificate can be replaced while serving (`setCertificate`), so rotated certificates are
 * picked up by every replica without a restart. `close()` finishes the requests in flight and answers
 * those still arriving on open connections, closing each connection after its answer.
 */
import { createServer } from "node:https";
import { createSecureContext, type Server as TlsServer } from "node:tls";
import { type FastifyReply, fastify } from "fastify";
import type { ServerClock } from "../clock.js";
import {
  type CelAdmissionHandler,
  type CelWebhookRoute,
  parseCelWebhookPath,
} from "../controllers/admission/cel-handler.js";
import type { AdmissionHandler, WebhookRoute } from "../controllers/admission/handler.js";
import { ReviewMessages } from "../controllers/admission/messages.js";
import type { PolicyValidation } from "../controllers/admission/policy-validation.js";
import {
  deny,
  type HandlerReply,
  serializeReview,
  sniffUid,
  statusBody,
} from "../controllers/admission/review.js";
import type { Logger } from "../logger.js";
import type { AdmissionMetrics } from "../metrics/metrics.js";
import { type BoundedBody, DEFAULT_BODY_LIMIT, readBoundedBody } from "./body.js";
import { createDirectReviews, type DirectRoute } from "./direct-reviews.js";
import { type BatchAnswer, createReviewBatch } from "./review-batch.js";

/** The resource webhook paths and the policies each evaluates. */
export const WEBHOOK_ROUTES: ReadonlyArray<readonly [string, WebhookRoute]> = [
  ["/validate/fail", { type: "validate", failurePolicy: "Fail" }],
  ["/validate/ignore", { type: "validate", failurePolicy: "Ignore" }],
  ["/mutate/fail", { type: "mutate", failurePolicy: "Fail" }],
  ["/mutate/ignore", { type: "mutate", failurePolicy: "Ignore" }],
  ["/validate", { type: "validate" }],
  ["/mutate", { type: "mutate" }],
];

/** A PEM certificate (chain) and its private key. */
export interface TlsMaterial {
  certPem: string;
  keyPem: string;
}

/** Options of `createWebhookServer`. */
export interface WebhookServerOptions {
  handler: AdmissionHandler;
  validation: PolicyValidation;
  /** Serves the CEL policies' webhooks (`/vpol/...`, `/mpol/...`, `/ivpol/...`) when given. */
  celHandler?: CelAdmissionHandler;
  clock: ServerClock;
  logger: Logger;
  metrics?: AdmissionMetrics;
  tls: TlsMaterial;
  /** Largest request body accepted (default 3 MiB). */
  bodyLimit?: number;
  /** Readiness probe answer (e.g. policies loaded); ready when omitted. Never ready once closing. */
  ready?: () => boolean;
  /** Closes requests whose body is still arriving after this long (default: handler deadline + 5 s). */
  requestTimeoutMs?: number;
}

/** A webhook server; see `createWebhookServer`. */
export interface WebhookServer {
  listen(options: { host?: string; port: number }): Promise<{ host: string; port: number }>;
  /**
   * Replaces the serving certificate for new connections. Throws (keeping the current one) when the
   * certificate and key do not form a usable pair.
   */
  setCertificate(certPem: string, keyPem: string): void;
  close(): Promise<void>;
}

const JSON_TYPE = "application/json";

/** `application/json`, parameters (`; charset=utf-8`) and case aside. */
function isJson(contentType: string | undefined): boolean {
  return contentType?.split(";")[0]?.trim().toLowerCase() === JSON_TYPE;
}

/** The body of an answer: the AdmissionReview template for the common answer, else JSON. */
function serializeReply(answer: HandlerReply): string {
  return answer.statusCode === 200 ? serializeReview(answer.body) : JSON.stringify(answer.body);
}

function send(reply: FastifyReply, answer: HandlerReply): FastifyReply {
  return reply.code(answer.statusCode).header("content-type", JSON_TYPE).send(serializeReply(answer));
}

/** The answer to an oversized body of an endpoint without a failure policy: a denial when it has a uid. */
function tooLargeReview(head: string, limit: number): HandlerReply {
  const uid = sniffUid(head);
  const message = ReviewMessages.tooLarge(limit);
  return uid ? { statusCode: 200, body: deny(uid, message, 413) } : statusBody(message);
}

/** The path prefixes of the CEL policies' webhooks. */
const CEL_PREFIXES = ["/vpol", "/mpol", "/ivpol", "/gpol"] as const;

/**
 * The CEL webhooks' routes: the route of a path (`/vpol/fail`, ...), undefined for a path that is
 * none. CEL reviews are batched as the resource reviews are (a queue of their own).
 */
function celRoutes(
  celHandler: CelAdmissionHandler,
  limit: number,
): (path: string) => DirectRoute | undefined {
  const celBatch = createReviewBatch<CelWebhookRoute>({
    handler: { handleBody: (route, body, opts) => celHandler.serveBody(route, body, opts) },
  });
  return (path) => {
    const prefix = CEL_PREFIXES.find((p) => path.startsWith(`${p}/`));
    const route = prefix === undefined ? undefined : parseCelWebhookPath(path);
    if (prefix === undefined || route === undefined) return undefined;
    return {
      url: `${prefix}/*`,
      serve(body, receivedAt, done) {
        if (!body.ok) done(tooLargeReview(body.head, limit));
        else celBatch.submit(route, body.text, receivedAt, done);
      },
    };
  };
}

/** A request body as the content-type parser hands it to the routes, with the time it started arriving. */
interface ReceivedBody {
  body: BoundedBody;
  /** Monotonic time the body started to be read (after routing), the start of the request's deadline. */
  receivedAt: number;
}

/** Creates the server (not yet listening). TLS 1.2+ only; HTTP/1.1 with keep-alive, as the API server uses it. */
export function createWebhookServer(options: WebhookServerOptions): WebhookServer {
  const { handler, validation, clock, logger, metrics } = options;
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const secure = { cert: options.tls.certPem, key: options.tls.keyPem, minVersion: "TLSv1.2" as const };
  createSecureContext(secure);
  /** Set by `close()`: the Pod is going away (its preStop sleep is over and SIGTERM arrived). */
  let closing = false;
  const app = fastify({
    https: secure,
    logger: false,
    requestTimeout: options.requestTimeoutMs ?? handler.deadlineMs + 5000,
    // Requests that reach a closing server are still answered (a 503 would reject them under a Fail
    // webhook); the onSend hook below closes their connections.
    return503OnClosing: false,
    // Fastify's own HTTPS server (lib/server.js: its timeouts), except that review bodies sent as
    // JSON to a webhook path are served before fastify sees them (see direct-reviews.ts).
    serverFactory: (fastifyHandler, opts) => {
      const server = createServer(secure, (request, response) => {
        if (!direct(request, response)) fastifyHandler(request, response);
      });
      server.keepAliveTimeout = opts.keepAliveTimeout as number;
      server.requestTimeout = opts.requestTimeout as number;
      server.setTimeout(opts.connectionTimeout as number);
      return server;
    },
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", (_request, payload, done) => {
    const receivedAt = clock.monotonic();
    readBoundedBody(payload, limit, (error, body) => {
      if (error !== null || body === undefined) done(error ?? new Error("no body"), undefined);
      else done(null, { body, receivedAt } satisfies ReceivedBody);
    });
  });
  // As upstream's admission handler: anything but a JSON body is refused before it is read.
  app.addHook("onRequest", (request, reply, next) => {
    if (request.method !== "POST" || isJson(request.headers["content-type"])) return next();
    logger.debug({ url: request.url, contentType: request.headers["content-type"] }, "invalid Content-Type");
    reply.header("connection", "close");
    void reply
      .code(415)
      .header("content-type", "text/plain; charset=utf-8")
      .send("invalid Content-Type, expect `application/json`\n");
  });
  // Once closing, every answer closes its connection: the API server's next request opens a new one,
  // which reaches a replica that stays, while this one finishes its in-flight reviews.
  app.addHook("onSend", (_request, reply, payload, next) => {
    if (closing) reply.header("connection", "close");
    next(null, payload);
  });
  app.addHook("onResponse", (request, reply, next) => {
    metrics?.httpRequest(request.method, request.routeOptions.url ?? "unmatched", reply.elapsedTime / 1000);
    next();
  });
  app.setErrorHandler((error, request, reply) => {
    logger.warn({ url: request.url, err: error }, "webhook request failed");
    const status = (error as { statusCode?: number }).statusCode ?? 500;
    const message = error instanceof Error ? error.message : String(error);
    void reply
      .code(status >= 400 && status < 600 ? status : 500)
      .header("content-type", JSON_TYPE)
      .send(JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", code: status, message }));
  });

  /** What the parser received; a request without a body (no content type) reads as an empty one. */
  const received = (raw: unknown): ReceivedBody =>
    raw === undefined
      ? { body: { ok: true, text: "" }, receivedAt: clock.monotonic() }
      : (raw as ReceivedBody);
  const bodyOf = (raw: unknown): BoundedBody => received(raw).body;

  // Resource reviews that arrive together are evaluated together (see review-batch.ts).
  const batch = createReviewBatch({ handler });
  /** Answers a review on fastify's reply (paths the direct dispatcher leaves, e.g. with a query string). */
  const respond = (reply: FastifyReply, close: boolean) => (result: BatchAnswer) => {
    if (close) reply.header("connection", "close");
    if (result instanceof Promise)
      result.then(
        (r) => send(reply, r),
        (error: unknown) => reply.send(error),
      );
    else send(reply, result);
  };
  const reviewRoutes = new Map<string, DirectRoute>();
  for (const [path, route] of WEBHOOK_ROUTES) {
    const served: DirectRoute = {
      url: path,
      serve(body, receivedAt, done) {
        if (!body.ok) done(handler.rejectBody(route, body.head, ReviewMessages.tooLarge(limit)));
        else batch.submit(route, body.text, receivedAt, done);
      },
    };
    reviewRoutes.set(path, served);
    app.post(path, (request, reply) => {
      const { body, receivedAt } = received(request.body);
      served.serve(body, receivedAt, respond(reply, !body.ok));
      return reply;
    });
  }
  for (const [path, endpoint] of [
    ["/policyvalidate", "policy"],
    ["/exceptionvalidate", "exception"],
  ] as const) {
    app.post(path, (request, reply) => {
      const body = bodyOf(request.body);
      if (!body.ok) {
        reply.header("connection", "close");
        return send(reply, tooLargeReview(body.head, limit));
      }
      validation.handleBody(endpoint, body.text).then(
        (r) => send(reply, r),
        (error: unknown) => reply.send(error),
      );
      return reply;
    });
  }
  const celRoute = options.celHandler && celRoutes(options.celHandler, limit);
  if (celRoute !== undefined)
    for (const prefix of CEL_PREFIXES) {
      app.post(`${prefix}/*`, (request, reply) => {
        const served = celRoute(request.url.split("?")[0] ?? "");
        if (served === undefined) return reply.code(404).send("not found");
        const { body, receivedAt } = received(request.body);
        served.serve(body, receivedAt, respond(reply, !body.ok));
        return reply;
      });
    }
  const direct = createDirectReviews({
    routes: reviewRoutes,
    ...(celRoute ? { prefixed: (path: string) => (path.includes("?") ? undefined : celRoute(path)) } : {}),
    limit,
    clock,
    logger,
    metrics,
    closing: () => closing,
    serialize: serializeReply,
    isJson,
  });
  app.get("/health/liveness", (_request, reply) => reply.code(200).send("ok"));
  app.get("/health/readiness", (_request, reply) => {
    const ready = !closing && (options.ready?.() ?? true);
    return reply.code(ready ? 200 : 503).send(ready ? "ok" : "not ready");
  });

  return {
    async listen({ host = "0.0.0.0", port }) {
      await app.listen({ host, port });
      const address = app.server.address();
      return { host, port: typeof address === "object" && address !== null ? address.port : port };
    },
    setCertificate(certPem, keyPem) {
      const next = { cert: certPem, key: keyPem, minVersion: "TLSv1.2" as const };
      createSecureContext(next);
      (app.server as TlsServer).setSecureContext(next);
      logger.info({}, "serving certificate replaced");
    },
    close() {
      closing = true;
      return app.close();
    },
  };
}
