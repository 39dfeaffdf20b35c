/**
 * Probes and lifecycle handlers as the kubelet runs them from the node: `httpGet` over HTTP or HTTPS
 * (certificate not verified; 200–399 is success) and `tcpSocket` to the Pod's IP; `exec` is not
 * supported (a failure saying so).
 */
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { connect } from "node:net";
import type { Container, Handler } from "./pod-types.js";

/** A probe's verdict. */
export interface ProbeResult {
  ok: boolean;
  message: string;
}

/** The number a port (number or container port name) stands for. */
export function resolvePort(container: Container, port: number | string): number | undefined {
  if (typeof port === "number") return port;
  if (/^\d+$/.test(port)) return Number(port);
  return container.ports?.find((p) => p.name === port)?.containerPort;
}

function httpGet(
  handler: NonNullable<Handler["httpGet"]>,
  host: string,
  port: number,
  timeoutMs: number,
): Promise<ProbeResult> {
  const https = (handler.scheme ?? "HTTP").toUpperCase() === "HTTPS";
  const request = https ? httpsRequest : httpRequest;
  const headers: Record<string, string> = { "User-Agent": "kube-probe/1.32", Accept: "*/*" };
  for (const h of handler.httpHeaders ?? []) headers[h.name] = h.value;
  const url = `${https ? "https" : "http"}://${host}:${port}${handler.path ?? "/"}`;
  return new Promise((resolve) => {
    const req = request(
      {
        host: handler.host ?? host,
        port,
        path: handler.path ?? "/",
        method: "GET",
        headers,
        timeout: timeoutMs,
        rejectUnauthorized: false,
        agent: false,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        res.resume();
        res.on("end", () =>
          resolve({ ok: status >= 200 && status < 400, message: `HTTP probe ${url}: ${status}` }),
        );
      },
    );
    req.on("timeout", () =>
      req.destroy(new Error(`context deadline exceeded (Client.Timeout exceeded while awaiting headers)`)),
    );
    req.on("error", (e) => resolve({ ok: false, message: `Get "${url}": ${e.message}` }));
    req.end();
  });
}

function tcp(host: string, port: number, timeoutMs: number): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: timeoutMs });
    socket.on("connect", () => {
      socket.destroy();
      resolve({ ok: true, message: `dial tcp ${host}:${port}: connected` });
    });
    socket.on("timeout", () => {
      socket.destroy();
      resolve({ ok: false, message: `dial tcp ${host}:${port}: i/o timeout` });
    });
    socket.on("error", (e) => resolve({ ok: false, message: `dial tcp ${host}:${port}: ${e.message}` }));
  });
}

/** Runs one probe or hook handler against the container at `podIP`. */
export async function runHandler(
  container: Container,
  handler: Handler,
  podIP: string,
  timeoutMs: number,
): Promise<ProbeResult> {
  if (handler.httpGet !== undefined) {
    const port = resolvePort(container, handler.httpGet.port);
    if (port === undefined)
      return { ok: false, message: `port ${handler.httpGet.port} is not a port of ${container.name}` };
    return httpGet(handler.httpGet, podIP, port, timeoutMs);
  }
  if (handler.tcpSocket !== undefined) {
    const port = resolvePort(container, handler.tcpSocket.port);
    if (port === undefined)
      return { ok: false, message: `port ${handler.tcpSocket.port} is not a port of ${container.name}` };
    return tcp(handler.tcpSocket.host ?? podIP, port, timeoutMs);
  }
  if (handler.sleep !== undefined) {
    await new Promise((r) =>
      setTimeout(r, handler.sleep?.seconds === undefined ? 0 : handler.sleep.seconds * 1000),
    );
    return { ok: true, message: `slept ${handler.sleep.seconds}s` };
  }
  return { ok: false, message: "exec handlers are not supported by the test kubelet" };
}
