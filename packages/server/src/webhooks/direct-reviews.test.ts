import { createServer, request, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../clock.js";
import { allow } from "../controllers/admission/review.js";
import { recordingLogger } from "../testing/fixtures.js";
import { createDirectReviews, type DirectRoute } from "./direct-reviews.js";

interface Answer {
  status: number;
  headers: string[];
  text: string;
}

function call(port: number, method: string, path: string, body?: string, type?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        agent: false,
        headers: type === undefined ? {} : { "content-type": type },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.rawHeaders.filter((_, i) => i % 2 === 0).map((h) => h.toLowerCase()),
            text: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("direct review dispatch", () => {
  let server: Server;
  let port: number;
  let closing = false;
  const seen: string[] = [];

  beforeAll(async () => {
    const route: DirectRoute = {
      url: "/validate/fail",
      serve(body, _receivedAt, respond) {
        if (!body.ok) respond({ statusCode: 200, body: allow("too-large") });
        else if (body.text.includes("throw")) respond(Promise.reject(new Error("handler failed")));
        else respond(Promise.resolve({ statusCode: 200, body: allow(JSON.parse(body.text).uid) }));
      },
    };
    const direct = createDirectReviews({
      routes: new Map([["/validate/fail", route]]),
      prefixed: (path) => (path.startsWith("/vpol/") ? { ...route, url: "/vpol/*" } : undefined),
      limit: 64,
      clock: systemClock(),
      logger: recordingLogger(),
      closing: () => closing,
      serialize: (answer) => JSON.stringify(answer.body),
      isJson: (type) => type === "application/json",
    });
    server = createServer((req, res) => {
      if (direct(req, res)) return;
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(299).end("fallback");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("answers JSON reviews on its paths, and leaves every other request to the fallback", async () => {
    const answer = await call(port, "POST", "/validate/fail", '{"uid":"a"}', "application/json");
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text).response).toEqual({ uid: "a", allowed: true });
    expect(answer.headers.slice(0, 2)).toEqual(["content-type", "content-length"]);
    expect((await call(port, "POST", "/vpol/fail", '{"uid":"b"}', "application/json")).status).toBe(200);
    for (const [method, path, type] of [
      ["GET", "/validate/fail", "application/json"],
      ["POST", "/validate/fail?timeout=10s", "application/json"],
      ["POST", "/validate/fail/", "application/json"],
      ["POST", "/validate/fail", "text/plain"],
      ["POST", "/validate/fail", undefined],
      ["POST", "/policyvalidate", "application/json"],
    ] as const)
      expect((await call(port, method, path, '{"uid":"c"}', type)).status).toBe(299);
    expect(seen).toHaveLength(6);
  });

  it("closes the connection of an oversized body and, once closing, of every answer", async () => {
    const big = await call(port, "POST", "/validate/fail", "x".repeat(100), "application/json");
    expect(big.headers[0]).toBe("connection");
    expect(JSON.parse(big.text).response.uid).toBe("too-large");
    closing = true;
    const late = await call(port, "POST", "/validate/fail", '{"uid":"d"}', "application/json");
    closing = false;
    expect(late.headers.slice(0, 3)).toEqual(["content-type", "content-length", "connection"]);
  });

  it("answers a failed review with a Status body, as the fastify error handler", async () => {
    const answer = await call(port, "POST", "/validate/fail", '{"throw":1}', "application/json");
    expect(answer.status).toBe(500);
    expect(JSON.parse(answer.text)).toEqual({
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      code: 500,
      message: "handler failed",
    });
  });
});
