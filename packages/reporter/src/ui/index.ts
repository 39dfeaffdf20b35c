/**
 * The dashboard on the reporter's API server: its files (`ui.path`) and, when `ui.openIDConnect`
 * or `ui.basicAuth` is configured, the login, sessions and access control in front of everything
 * but the probes.
 */
import type { FastifyInstance } from "fastify";
import type { UiConfig } from "../auth/config.js";
import { loginEnabled, registerAuth } from "../auth/plugin.js";
import { type Logger, silentLogger } from "../logger.js";
import { registerSecurityHeaders } from "./security-headers.js";
import { registerDashboard } from "./serve.js";

/** Options of {@link registerUi}. */
export interface UiOptions {
  ui: UiConfig;
  /** The API's HTTP basic credentials, still accepted on API routes when the login is on. */
  apiBasicAuth?: { username: string; password: string };
  logger?: Logger;
  /** Milliseconds since the epoch (tests). */
  now?: () => number;
}

/** What {@link registerUi} set up. */
export interface UiSetup {
  /** Whether the dashboard files are served. */
  dashboard: boolean;
  /** Whether a login guards the app. */
  login: boolean;
}

/** Registers the login (when configured) and the dashboard (when `ui.enabled`) on `app`. */
export async function registerUi(app: FastifyInstance, options: UiOptions): Promise<UiSetup> {
  const logger = options.logger ?? silentLogger;
  registerSecurityHeaders(app, options.ui.apiUrl ? { apiUrl: options.ui.apiUrl } : {});
  const login = loginEnabled(options.ui);
  if (login) {
    await registerAuth(app, {
      ui: options.ui,
      logger,
      ...(options.apiBasicAuth ? { apiBasicAuth: options.apiBasicAuth } : {}),
      ...(options.now ? { now: options.now } : {}),
    });
  }
  const dashboard = options.ui.enabled
    ? await registerDashboard(app, {
        logger,
        ...(options.ui.path ? { root: options.ui.path } : {}),
        ...(options.ui.apiUrl ? { apiUrl: options.ui.apiUrl } : {}),
      })
    : false;
  return { dashboard, login };
}
