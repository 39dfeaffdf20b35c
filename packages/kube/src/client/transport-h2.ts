/**
 * HTTP/2 to the API server, as client-go speaks it by default: one TLS connection offering `h2` and
 * `http/1.1` (ALPN); when the server picks `h2`, every request of the transport (watches included) is a
 * stream of one session, which costs the client about half the CPU of an HTTP/1.1 request on a
 * keep-alive socket (scripts/bench-transport.ts). A server that picks HTTP/1.1 is remembered, and the
 * transport keeps using its keep-alive agent.
 */

import type { IncomingHttpHeaders } from "node:http";
import * as http2 from "node:http2";
import * as tls from "node:tls";

/** What the session's TLS connection presents and trusts (from the kubeconfig). */
export type H2TlsOptions = Pick<
  tls.ConnectionOptions,
  "ca" | "cert" | "key" | "pfx" | "passphrase" | "rejectUnauthorized" | "servername"
>;

/** The session to send on, or `http/1.1` when the server does not speak HTTP/2. */
export type H2Choice = http2.ClientHttp2Session | "http/1.1";

/** One HTTP/2 session at a time to one server; see `createH2Sessions`. */
export interface H2Sessions {
  /** The open session (a new one after the last closed or got a GOAWAY), or `http/1.1`; rejects when the connection fails. */
  session(tlsOptions: H2TlsOptions): Promise<H2Choice>;
  /** A stream started on the session (kept referenced while streams are open). */
  opened(session: http2.ClientHttp2Session, stream: http2.ClientHttp2Stream): void;
  /** Closes the session once its open streams (watches) end; the next request opens a new one. */
  close(): void;
}

/** A response's status and headers, whichever protocol carried it. */
export interface ResponseHead {
  status: number;
  headers: IncomingHttpHeaders;
}

/** The head of an HTTP/2 response (`:status` and the other headers). */
export function h2Head(headers: http2.IncomingHttpHeaders & http2.IncomingHttpStatusHeader): ResponseHead {
  return { status: headers[":status"] ?? 0, headers: headers as IncomingHttpHeaders };
}

const STREAM_WINDOW = 4 * 2 ** 20;
const CONNECTION_WINDOW = 32 * 2 ** 20;

/** Connects, offering `h2` then `http/1.1`; the negotiated protocol and the socket. */
function negotiate(
  host: string,
  port: number,
  options: H2TlsOptions,
): Promise<{ protocol: string | false; socket: tls.TLSSocket }> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      ...options,
      host,
      port,
      ALPNProtocols: ["h2", "http/1.1"],
      ...(options.servername === undefined && !/^[\d.:]+$/.test(host) ? { servername: host } : {}),
    });
    const fail = (error: Error): void => {
      socket.destroy();
      reject(error);
    };
    socket.once("error", fail);
    socket.once("secureConnect", () => {
      socket.removeListener("error", fail);
      resolve({ protocol: socket.alpnProtocol ?? false, socket });
    });
  });
}

/** Creates the sessions to `origin` (`https://host:port`); nothing connects until `session`. */
export function createH2Sessions(origin: URL): H2Sessions {
  const host = origin.hostname.startsWith("[") ? origin.hostname.slice(1, -1) : origin.hostname;
  const port = origin.port === "" ? 443 : Number(origin.port);
  /** The session new streams go to (or its connection in progress). */
  let current: Promise<H2Choice> | undefined;
  let h1 = false;
  const active = new WeakMap<http2.ClientHttp2Session, number>();

  const open = async (tlsOptions: H2TlsOptions): Promise<H2Choice> => {
    const { protocol, socket } = await negotiate(host, port, tlsOptions);
    if (protocol !== "h2") {
      socket.destroy();
      h1 = true;
      return "http/1.1";
    }
    socket.setKeepAlive(true, 30000);
    // Flow-control windows as client-go's (4 MiB per stream, more for the connection): a list page or
    // a burst of watch events is not held up waiting for window updates.
    const session = http2.connect(origin, {
      createConnection: () => socket,
      settings: { initialWindowSize: STREAM_WINDOW },
    });
    session.once("connect", () => session.setLocalWindowSize(CONNECTION_WINDOW));
    const settled = current;
    // A session that ends (closed, failed, or told to go away) takes no new streams: the next request
    // opens another. Its own streams get the error or their end.
    const forget = (): void => {
      if (current === settled) current = undefined;
    };
    session.on("close", forget);
    session.on("error", forget);
    session.on("goaway", forget);
    // Idle, it does not keep the process alive (as the keep-alive agent's free sockets do not).
    session.unref();
    return session;
  };

  return {
    session(tlsOptions) {
      if (h1) return Promise.resolve("http/1.1");
      if (current !== undefined) return current;
      const pending = open(tlsOptions);
      current = pending;
      pending.catch(() => {
        if (current === pending) current = undefined;
      });
      return pending;
    },
    opened(session, stream) {
      const streams = active.get(session) ?? 0;
      if (streams === 0) session.ref();
      active.set(session, streams + 1);
      stream.once("close", () => {
        const left = (active.get(session) ?? 1) - 1;
        active.set(session, left);
        if (left === 0 && !session.destroyed) session.unref();
      });
    },
    close() {
      const closing = current;
      current = undefined;
      void closing?.then(
        (s) => {
          if (s !== "http/1.1") s.close();
        },
        () => undefined,
      );
    },
  };
}
