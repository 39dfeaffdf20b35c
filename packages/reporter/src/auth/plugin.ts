/**
 * The login on the reporter's fastify app: `GET /login` (the sign-in page), `GET /login/oidc` (to
 * the OpenID provider), the callback (`ui.openIDConnect.callbackUrl`'s path), `POST /login` (basic
 * auth form), `GET|POST /logout`, `GET /profile` (the signed-in user, for the dashboard), and a
 * guard on every other route: no session → 401 for the API, a redirect to `/login` for pages;
 * a session the access control refuses → 403. `/healthz`, `/ready` and `/metrics` stay open;
 * API clients may still send the API's HTTP basic credentials (`basicAuth`) instead of a cookie.
 */
import { timingSafeEqual } from "node:crypto";
import fastifyCookie from "@fastify/cookie";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type Logger, silentLogger } from "../logger.js";
import { accessControlsOf, isAllowed } from "./access.js";
import type { UiConfig } from "./config.js";
import { createOidcLogin, isOidcTransaction, type OidcLogin, type OidcTransaction } from "./oidc.js";
import { forbiddenPage, loginFailedPage, loginPage, signInRedirectPage } from "./pages.js";
import {
  createTokenCodec,
  isSessionUser,
  type SessionUser,
  sessionSecret,
  type UserProfile,
} from "./session.js";

/** The session cookie's name. */
export const SESSION_COOKIE = "policy-reporter-session";
/** The OpenID Connect transaction cookie's name (10 minutes). */
export const TRANSACTION_COOKIE = "policy-reporter-oidc";

/** Options of {@link registerAuth}. */
export interface AuthOptions {
  ui: Pick<UiConfig, "openIDConnect" | "basicAuth" | "sessions" | "boards" | "clusters" | "name">;
  /** The API's own HTTP basic credentials (`basicAuth`), still accepted on API routes. */
  apiBasicAuth?: { username: string; password: string };
  logger?: Logger;
  /** Milliseconds since the epoch (tests). */
  now?: () => number;
}

/** Paths that need no session. */
const OPEN = ["/healthz", "/ready", "/metrics", "/login", "/login/oidc", "/logout"];
/** Paths answered with 401 / 403 JSON rather than pages. */
const API = /^\/(v1|v2)\/|^\/profile$/;

/** Whether the configuration enables a login (OpenID Connect or the basic-auth form). */
export function loginEnabled(ui: Pick<UiConfig, "openIDConnect" | "basicAuth">): boolean {
  return ui.openIDConnect.enabled || ui.basicAuth.username !== "";
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Whether `username` / `password` match `expected` (both compared in constant time). */
export function credentialsMatch(
  expected: { username: string; password: string },
  username: string,
  password: string,
): boolean {
  const user = same(username, expected.username);
  const pass = same(password, expected.password);
  return user && pass;
}

function basicHeader(header: string | undefined): { username: string; password: string } | undefined {
  if (!header?.startsWith("Basic ")) return undefined;
  const decoded = Buffer.from(header.slice(6), "base64").toString("utf8");
  const at = decoded.indexOf(":");
  return at < 0 ? undefined : { username: decoded.slice(0, at), password: decoded.slice(at + 1) };
}

/** Only a dashboard hash route may be returned to (no open redirect). */
export function safeReturnTo(value: unknown): string {
  return typeof value === "string" && /^#\/[^\s\\]{0,2000}$/.test(value) ? value : "";
}

function field(body: unknown, name: string): string {
  if (body instanceof URLSearchParams) return body.get(name) ?? "";
  if (typeof body === "object" && body !== null) {
    const v = (body as Record<string, unknown>)[name];
    return typeof v === "string" ? v : "";
  }
  return "";
}

/** Registers the login routes and the guard (call before the app is ready). */
export async function registerAuth(app: FastifyInstance, options: AuthOptions): Promise<void> {
  const { ui } = options;
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? Date.now;
  const { secret, generated } = sessionSecret(ui.sessions.secret);
  if (generated)
    logger.warn({}, "ui.server.sessions.secret is not set: sessions end when the reporter restarts");
  const sessions = createTokenCodec<SessionUser>({
    secret,
    maxAgeSeconds: ui.sessions.maxAge,
    purpose: "session",
    validate: isSessionUser,
    now,
  });
  const transactions = createTokenCodec<OidcTransaction>({
    secret,
    maxAgeSeconds: 600,
    purpose: "oidc-transaction",
    validate: isOidcTransaction,
    now,
  });
  const oidcConfig = ui.openIDConnect;
  const oidc: OidcLogin | undefined = oidcConfig.enabled ? createOidcLogin(oidcConfig) : undefined;
  const callbackUrl = oidc ? new URL(oidcConfig.callbackUrl) : undefined;
  const basic = ui.basicAuth.username !== "" ? ui.basicAuth : undefined;
  const controls = accessControlsOf(ui);
  const open = new Set([...OPEN, ...(callbackUrl ? [callbackUrl.pathname] : [])]);

  await app.register(fastifyCookie);
  if (!app.hasContentTypeParser("application/x-www-form-urlencoded")) {
    app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_req, body, done) =>
      done(null, new URLSearchParams(String(body))),
    );
  }

  const cookieOptions = (request: FastifyRequest, maxAge: number) => ({
    path: "/",
    httpOnly: true,
    sameSite: "lax" as const,
    secure: request.protocol === "https" || callbackUrl?.protocol === "https:",
    maxAge,
  });
  const userOf = (request: FastifyRequest) => sessions.decode(request.cookies[SESSION_COOKIE]);
  const html = (reply: FastifyReply, status: number, body: string) =>
    reply.code(status).header("cache-control", "no-store").type("text/html; charset=utf-8").send(body);
  const startSession = (
    request: FastifyRequest,
    reply: FastifyReply,
    user: SessionUser,
    returnTo: string,
  ) => {
    reply.setCookie(SESSION_COOKIE, sessions.encode(user), cookieOptions(request, ui.sessions.maxAge));
    logger.info({ user: user.email || user.sub, method: user.method }, "signed in");
    return reply.header("cache-control", "no-store").redirect(`/${returnTo}`, 303);
  };
  const renderLogin = (reply: FastifyReply, status: number, returnTo: string, error?: string) =>
    html(
      reply,
      status,
      loginPage({
        basic: basic !== undefined,
        returnTo,
        ...(oidc ? { oidcUrl: "login/oidc" } : {}),
        ...(error ? { error } : {}),
      }),
    );

  app.addHook("onRequest", async (request, reply) => {
    const path = request.url.split("?")[0] ?? "/";
    if (open.has(path)) return;
    const isApi = API.test(path);
    const credentials = isApi ? basicHeader(request.headers.authorization) : undefined;
    if (credentials && options.apiBasicAuth) {
      if (credentialsMatch(options.apiBasicAuth, credentials.username, credentials.password)) return;
    }
    const user = userOf(request);
    if (!user) {
      if (isApi)
        return reply.code(401).send({ statusCode: 401, error: "Unauthorized", message: "sign in first" });
      // The fragment (`#/route?filters`) never reaches the server: a page carries it to the login.
      if (path === "/" || path === "/index.html") return html(reply, 401, signInRedirectPage("/login"));
      return reply.header("cache-control", "no-store").redirect("/login", 302);
    }
    if (!isAllowed(user, controls)) {
      if (isApi) {
        return reply.code(403).send({
          statusCode: 403,
          error: "Forbidden",
          message: `${user.email || user.name} is not allowed`,
        });
      }
      return html(reply, 403, forbiddenPage(user));
    }
  });

  app.get("/login", async (request, reply) => {
    const returnTo = safeReturnTo((request.query as Record<string, unknown>).returnTo);
    if (userOf(request)) return reply.redirect(`/${returnTo}`, 302);
    return renderLogin(reply, 200, returnTo);
  });
  if (basic) {
    app.post("/login", async (request, reply) => {
      const returnTo = safeReturnTo(field(request.body, "returnTo"));
      const username = field(request.body, "username");
      if (!credentialsMatch(basic, username, field(request.body, "password"))) {
        logger.warn({ user: username }, "basic-auth sign-in refused");
        return renderLogin(reply, 401, returnTo, "Wrong username or password.");
      }
      const user: SessionUser = { sub: username, name: username, email: "", groups: [], method: "basic" };
      return startSession(request, reply, user, returnTo);
    });
  }
  if (oidc && callbackUrl) {
    app.get("/login/oidc", async (request, reply) => {
      const returnTo = safeReturnTo((request.query as Record<string, unknown>).returnTo);
      try {
        const { url, transaction } = await oidc.start(returnTo);
        reply.setCookie(TRANSACTION_COOKIE, transactions.encode(transaction), cookieOptions(request, 600));
        return reply.header("cache-control", "no-store").redirect(url.href, 302);
      } catch (error) {
        logger.error({ err: String(error) }, "OpenID Connect discovery failed");
        return html(reply, 502, loginFailedPage("The identity provider cannot be reached. Try again later."));
      }
    });
    app.get(callbackUrl.pathname, async (request, reply) => {
      const transaction = transactions.decode(request.cookies[TRANSACTION_COOKIE]);
      reply.clearCookie(TRANSACTION_COOKIE, { path: "/" });
      if (!transaction) {
        return html(reply, 400, loginFailedPage("The sign-in expired or was started elsewhere. Try again."));
      }
      const current = new URL(callbackUrl.href);
      current.search = new URL(request.url, callbackUrl).search;
      let user: SessionUser;
      try {
        user = await oidc.finish(current, transaction);
      } catch (error) {
        logger.warn({ err: String(error) }, "OpenID Connect sign-in failed");
        return html(
          reply,
          401,
          loginFailedPage(`The identity provider did not sign you in: ${String(error)}`),
        );
      }
      if (!isAllowed(user, controls)) {
        logger.warn({ user: user.email || user.sub, groups: user.groups }, "access denied");
      }
      return startSession(request, reply, user, transaction.returnTo);
    });
  }
  const logout = async (request: FastifyRequest, reply: FastifyReply) => {
    const user = userOf(request);
    if (user) logger.info({ user: user.email || user.sub }, "signed out");
    reply.clearCookie(SESSION_COOKIE, { path: "/" });
    return reply.header("cache-control", "no-store").redirect("/login", 303);
  };
  app.get("/logout", logout);
  app.post("/logout", logout);
  app.get("/profile", async (request): Promise<UserProfile> => {
    const user = userOf(request);
    return user
      ? { name: user.name, email: user.email, groups: user.groups, method: user.method }
      : { name: "", email: "", groups: [], method: "" };
  });
}
