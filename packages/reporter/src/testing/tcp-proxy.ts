/**
 * A loopback TCP proxy for fault tests: it forwards to a server (PostgreSQL) until `cut()`, which
 * resets every open connection and stops listening (new connections are refused, as with a
 * database that went away), and `restore()`, which listens on the same port again.
 */
import { connect, createServer, type Server, type Socket } from "node:net";

/** A running proxy. */
export interface TcpProxy {
  /** The port clients connect to (127.0.0.1). */
  readonly port: number;
  /** Connections accepted so far. */
  accepted(): number;
  /** Resets every connection and refuses new ones. */
  cut(): Promise<void>;
  /** Accepts and forwards again, on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a proxy from a free loopback port to `target`. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let accepted = 0;
  const makeServer = (): Server =>
    createServer((client) => {
      accepted++;
      const upstream = connect(target.port, target.host);
      open.add(client);
      open.add(upstream);
      const end = () => {
        client.destroy();
        upstream.destroy();
        open.delete(client);
        open.delete(upstream);
      };
      client.on("error", end).on("close", end);
      upstream.on("error", end).on("close", end);
      client.pipe(upstream);
      upstream.pipe(client);
    });
  const listen = (server: Server, port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        const address = server.address();
        resolve(typeof address === "object" && address ? address.port : 0);
      });
    });
  let server: Server | undefined = makeServer();
  const port = await listen(server, 0);
  const stop = async () => {
    const s = server;
    server = undefined;
    for (const socket of open) socket.resetAndDestroy();
    open.clear();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  return {
    port,
    accepted: () => accepted,
    cut: stop,
    async restore() {
      if (server) return;
      const s = makeServer();
      await listen(s, port);
      server = s;
    },
    close: stop,
  };
}
