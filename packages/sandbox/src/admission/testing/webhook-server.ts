/**
 * Test-only: a local HTTPS webhook server whose answer per request is scripted by the test.
 * Not part of the package API (imported by tests beside the code only).
 */
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import type { TestPki } from "./pki.js";

/** What the server answers: a JSON or raw body, a status, a delay, or no answer at all. */
export interface ScriptedReply {
  status?: number;
  contentType?: string;
  /** Sent with JSON.stringify unless it is a string. */
  body?: JsonValue;
  delayMs?: number;
  /** Never answer (the client must time out). */
  hang?: boolean;
}

/** Answers one AdmissionReview POSTed to `path`. */
export type ReviewHandler = (review: JsonObject, path: string) => ScriptedReply;

/** A running server: its base URL, the reviews it received (with their paths), and `close`. */
export interface TestWebhookServer {
  url: string;
  port: number;
  received: Array<{ path: string; review: JsonObject }>;
  close(): Promise<void>;
}

/** The `request.uid` of a received review. */
export function uidOf(review: JsonObject): string {
  const req = review.request;
  return typeof req === "object" && req !== null && !Array.isArray(req) && typeof req.uid === "string"
    ? req.uid
    : "";
}

/** A well-formed v1 answer echoing the request uid, with `response` fields merged in. */
export function respond(review: JsonObject, response: JsonObject): ScriptedReply {
  return {
    body: {
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: { uid: uidOf(review), ...response },
    },
  };
}

/** A v1 answer carrying a base64 JSON patch. */
export function patchReply(review: JsonObject, ops: JsonValue[], extra: JsonObject = {}): ScriptedReply {
  const patch = Buffer.from(JSON.stringify(ops)).toString("base64");
  return respond(review, { allowed: true, patchType: "JSONPatch", patch, ...extra });
}

/** Starts an HTTPS server on 127.0.0.1 with the PKI's certificate. */
export async function startWebhookServer(pki: TestPki, handler: ReviewHandler): Promise<TestWebhookServer> {
  const received: TestWebhookServer["received"] = [];
  const server: Server = createServer({ cert: pki.certPem, key: pki.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as JsonObject;
      const path = req.url ?? "";
      received.push({ path, review });
      const reply = handler(review, path);
      if (reply.hang === true) return;
      const send = (): void => {
        const body = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body ?? null);
        res.writeHead(reply.status ?? 200, { "Content-Type": reply.contentType ?? "application/json" });
        res.end(body);
      };
      if (reply.delayMs === undefined) send();
      else setTimeout(send, reply.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
