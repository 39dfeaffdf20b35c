/**
 * The resource and CEL webhooks served straight from Node's `request` event, before fastify. A review
 * needs none of what fastify adds per request (route lookup over every route, the hook chains, the
 * content-type parser registry, the reply object and its serializer); in `npm run bench:admission`
 * they cost a plain fastify no-op about 9 % more server CPU per request than a bare Node handler, and
 * they ran for every review. Everything else (probes, the policy validation endpoints, unknown paths,
 * other methods, bodies that are not JSON) still goes to fastify, and the answers are the same as
 * fastify's were: the same status, headers and body, the `connection: close` of a closing server or
 * an oversized body, the error handler's `Status` body and `kyverno_http_requests_*`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ServerClock } from "../clock.js";
import type { HandlerReply } from "../controllers/admission/review.js";
import type { Logger } from "../logger.js";
import type { AdmissionMetrics } from "../metrics/metrics.js";
import { type BoundedBody, readBoundedBody } from "./body.js";

/** A review path served here. */
export interface DirectRoute {
  /** The route as `kyverno_http_requests_*` name it (fastify's route pattern: `/vpol/*`). */
  readonly url: string;
  /**
   * What the path does with a body (read whole, or the head of an oversized one): `respond` is called
   * once with its answer, a promise of it, or a rejected promise that goes to the error handler.
   */
  serve(
    body: BoundedBody,
    receivedAt: number,
    respond: (answer: HandlerReply | Promise<HandlerReply>) => void,
  ): void;
}

/** Options of `createDirectReviews`. */
export interface DirectReviewsOptions {
  /** Exact request paths (no query string) and what answers them. */
  routes: ReadonlyMap<string, DirectRoute>;
  /** The route of a path not in `routes` (the CEL webhooks' `/vpol/...`), if it is served here. */
  prefixed?: (path: string) => DirectRoute | undefined;
  /** Largest body read whole. */
  limit: number;
  clock: ServerClock;
  logger: Logger;
  metrics?: AdmissionMetrics | undefined;
  /** True once the server is closing: every answer then closes its connection. */
  closing: () => boolean;
  /** Serialises an answer (the AdmissionReview template for the common answer). */
  serialize: (answer: HandlerReply) => string;
  /** Decides whether a content type is JSON (anything else goes to fastify, which answers 415). */
  isJson: (contentType: string | undefined) => boolean;
}

/** Takes a request when it is a JSON POST to a review path (returns true), else leaves it (false). */
export type DirectReviews = (request: IncomingMessage, response: ServerResponse) => boolean;

/** As fastify sends a string answer sent with `content-type: application/json`. */
const JSON_TYPE = "application/json; charset=utf-8";

/** Creates the dispatcher; see the module comment. */
export function createDirectReviews(options: DirectReviewsOptions): DirectReviews {
  const { routes, limit, clock, logger, metrics, closing, serialize, isJson } = options;

  const write = (
    url: string,
    response: ServerResponse,
    startedAt: number,
    status: number,
    text: string,
    close: boolean,
  ): void => {
    if (response.writableEnded || response.destroyed) return;
    const length = Buffer.byteLength(text);
    // In fastify's order: a route's own `connection` header first, the closing server's last.
    response.writeHead(
      status,
      close
        ? { connection: "close", "content-type": JSON_TYPE, "content-length": length }
        : closing()
          ? { "content-type": JSON_TYPE, "content-length": length, connection: "close" }
          : { "content-type": JSON_TYPE, "content-length": length },
    );
    response.end(text);
    metrics?.httpRequest("POST", url, (clock.monotonic() - startedAt) / 1000);
  };

  /** As the fastify error handler: a warning and a `Status` body with the error's status (else 500). */
  const fail = (
    request: IncomingMessage,
    url: string,
    response: ServerResponse,
    startedAt: number,
    error: unknown,
  ): void => {
    logger.warn({ url: request.url, err: error }, "webhook request failed");
    const status = (error as { statusCode?: number } | null)?.statusCode ?? 500;
    const code = status >= 400 && status < 600 ? status : 500;
    const message = error instanceof Error ? error.message : String(error);
    write(
      url,
      response,
      startedAt,
      code,
      JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", code: status, message }),
      false,
    );
  };

  return (request, response) => {
    if (request.method !== "POST") return false;
    const path = request.url ?? "";
    const route = routes.get(path) ?? options.prefixed?.(path);
    if (route === undefined || !isJson(request.headers["content-type"])) return false;
    const startedAt = clock.monotonic();
    const { url } = route;
    readBoundedBody(request, limit, (error, body) => {
      if (error !== null || body === undefined) {
        fail(request, url, response, startedAt, error ?? new Error("no body"));
        return;
      }
      // As fastify's content-type parser did: the deadline starts when the body starts to be read.
      route.serve(body, startedAt, (answer) => {
        const close = !body.ok;
        if (answer instanceof Promise)
          answer.then(
            (reply) => write(url, response, startedAt, reply.statusCode, serialize(reply), close),
            (thrown: unknown) => fail(request, url, response, startedAt, thrown),
          );
        else write(url, response, startedAt, answer.statusCode, serialize(answer), close);
      });
    });
    return true;
  };
}
