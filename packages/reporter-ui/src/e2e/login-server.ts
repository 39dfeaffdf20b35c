/**
 * The reporter as deployed with a login, for the browser tests: the API on an in-memory SQLite
 * store seeded with the demo reports, the built dashboard and `registerUi` (OpenID Connect, the
 * basic-auth form, access control) on one port.
 */

import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import {
  createApiServer,
  createIngest,
  createStore,
  defaultUiConfig,
  registerUi,
  type UiConfig,
} from "@kyverno-ts/reporter";
import { demoReports } from "../../scripts/demo-data.ts";

/** A running reporter with the dashboard and its login. */
export interface LoginServer {
  /** `http://127.0.0.1:<port>/`. */
  readonly url: string;
  close(): Promise<void>;
}

/** A free port on 127.0.0.1 (the callback URL must be known before the server starts). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((ok) => probe.listen(0, "127.0.0.1", ok));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((ok) => probe.close(() => ok()));
  return port;
}

/** Starts the reporter on `port` with `ui` over the defaults (dashboard from `../../dist`). */
export async function startLoginServer(port: number, ui: Partial<UiConfig>): Promise<LoginServer> {
  const store = await createStore({ type: "sqlite", path: ":memory:" });
  const ingest = createIngest({ store });
  for (const report of demoReports()) await ingest.upsert(report);
  await ingest.flush();
  const config: UiConfig = {
    ...defaultUiConfig(),
    path: fileURLToPath(new URL("../../dist", import.meta.url)),
    ...ui,
  };
  const api = await createApiServer({ store, ready: true, setup: (app) => registerUi(app, { ui: config }) });
  await api.listen({ port, host: "127.0.0.1" });
  return {
    url: `http://127.0.0.1:${port}/`,
    async close() {
      await api.close();
      await ingest.close();
      await store.close();
    },
  };
}
