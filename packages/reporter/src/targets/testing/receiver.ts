/**
 * Test support: a real HTTP receiver on 127.0.0.1 that records requests and answers as told, plus
 * fixtures (results, clock, logger). Not exported from the package.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Clock } from "@kyverno-ts/api";
import type { LogFields, Logger } from "../../logger.js";
import type { NotifiableResult, TargetDeps } from "../types.js";

/** A request the receiver got. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body parsed as JSON. */
  json: unknown;
}

/** How to answer a request: a status (and body), or never. */
export type Reply = { status: number; body?: string; headers?: Record<string, string> } | "hang";

/** A running receiver. */
export interface Receiver {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  url: string;
  requests: ReceivedRequest[];
  /** Resolves once `count` requests arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** Starts a receiver; `reply` decides each answer from the request and its 0-based index (default 200). */
export async function startReceiver(
  reply: (req: ReceivedRequest, index: number) => Reply = () => ({ status: 200 }),
): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  let listeners: (() => void)[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const received = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body, json };
      const index = requests.length;
      requests.push(received);
      for (const l of listeners) l();
      const answer = reply(received, index);
      if (answer === "hang") {
        hanging.push(res);
        return;
      }
      res.writeHead(answer.status, answer.headers).end(answer.body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    waitFor(count, timeoutMs = 3000) {
      if (requests.length >= count) return Promise.resolve(requests.slice(0, count));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`expected ${count} requests, got ${requests.length}`)),
          timeoutMs,
        );
        const check = (): void => {
          if (requests.length < count) return;
          clearTimeout(timer);
          listeners = listeners.filter((l) => l !== check);
          resolve(requests.slice(0, count));
        };
        listeners.push(check);
      });
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The fixed "now" of the tests: 2026-03-04T05:06:07.000Z. */
export const NOW = new Date("2026-03-04T05:06:07.000Z");

/**
 * A clock stuck at `now`. Its timers record their delay and fire on the next turn of the event loop, or
 * after the real delay with `realTimers`, so retry tests check backoff without waiting for it.
 */
export function testClock(now: Date = NOW, realTimers = false): Clock & { sleeps: number[] } {
  const sleeps: number[] = [];
  const cancels = new Map<number, () => void>();
  let next = 0;
  return {
    sleeps,
    now: () => now.getTime(),
    after(ms, fn) {
      sleeps.push(ms);
      const id = ++next;
      const run = (): void => {
        cancels.delete(id);
        fn();
      };
      if (realTimers) {
        const t = setTimeout(run, ms);
        cancels.set(id, () => clearTimeout(t));
      } else {
        const t = setImmediate(run);
        cancels.set(id, () => clearImmediate(t));
      }
      return () => {
        cancels.get(id)?.();
        cancels.delete(id);
      };
    },
  };
}

/** A logger that keeps what it is given. */
export function testLogger(): Logger & { lines: { level: string; fields: LogFields; message: string }[] } {
  const lines: { level: string; fields: LogFields; message: string }[] = [];
  const at =
    (level: string) =>
    (fields: LogFields, message: string): void => {
      lines.push({ level, fields, message });
    };
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/** A failing result about a Pod, with overrides. */
export function sampleResult(overrides: Partial<NotifiableResult> = {}): NotifiableResult {
  return {
    id: "123",
    policy: "require-labels",
    rule: "check-team",
    result: "fail",
    message: "label 'team' is required",
    severity: "high",
    category: "Best Practices",
    source: "kyverno",
    scored: true,
    timestamp: Date.parse("2026-03-04T05:00:00.000Z"),
    resource: { apiVersion: "v1", kind: "Pod", name: "nginx", namespace: "default", uid: "uid-1" },
    properties: {},
    ...overrides,
  };
}

/** Target dependencies for tests: the given client, a test clock and logger, an optional error hook. */
export function testDeps(http: TargetDeps["http"], onError?: TargetDeps["onError"]) {
  const deps = { http, clock: testClock(), logger: testLogger() };
  return onError === undefined ? deps : { ...deps, onError };
}
