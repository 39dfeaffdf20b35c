/**
 * Serves the built dashboard (`packages/reporter-ui/dist`) at `/` with `@fastify/static`:
 * `index.html` is never cached and gets `<meta name="policy-reporter-api">` when the API lives
 * elsewhere; hashed assets under `assets/` are cached for a year. API routes take precedence over
 * the files (fastify prefers static routes to the wildcard).
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type Logger, silentLogger } from "../logger.js";

/** Options of {@link registerDashboard}. */
export interface DashboardOptions {
  /** The built UI; default {@link defaultDashboardDir}. */
  root?: string;
  /** The API base injected as `<meta name="policy-reporter-api">`; default none (same origin). */
  apiUrl?: string;
  logger?: Logger;
}

/** `packages/reporter-ui/dist`, resolved from this module (in `src/ui/` or `dist/ui/`). */
export function defaultDashboardDir(): string {
  return fileURLToPath(new URL("../../../reporter-ui/dist/", import.meta.url));
}

const escapeAttr = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** `index.html` with the API meta tag (replacing one already present). */
export function injectApiMeta(html: string, apiUrl: string): string {
  if (apiUrl === "") return html;
  const tag = `<meta name="policy-reporter-api" content="${escapeAttr(apiUrl)}">`;
  const existing = /<meta\s+name="policy-reporter-api"[^>]*>/i;
  if (existing.test(html)) return html.replace(existing, tag);
  return html.replace(/<head>/i, `<head>\n    ${tag}`);
}

/**
 * Registers the dashboard's files. Returns false (and logs a warning) when the directory has no
 * `index.html`: the API still works, the dashboard is just not served.
 */
export async function registerDashboard(
  app: FastifyInstance,
  options: DashboardOptions = {},
): Promise<boolean> {
  const logger = options.logger ?? silentLogger;
  const root = resolve(options.root || defaultDashboardDir());
  const indexFile = join(root, "index.html");
  if (!existsSync(indexFile)) {
    logger.warn(
      { path: root },
      "no built dashboard found (npm run build -w @kyverno-ts/reporter-ui); serving the API only",
    );
    return false;
  }
  const index = injectApiMeta(await readFile(indexFile, "utf8"), options.apiUrl ?? "");
  const sendIndex = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.type("text/html; charset=utf-8").header("cache-control", "no-cache").send(index);
  app.get("/", sendIndex);
  app.get("/index.html", sendIndex);
  await app.register(fastifyStatic, {
    root,
    prefix: "/",
    index: false,
    wildcard: true,
    cacheControl: false,
    setHeaders(res, path) {
      const immutable = path.startsWith(join(root, "assets"));
      res.header("cache-control", immutable ? "public, max-age=31536000, immutable" : "no-cache");
    },
  });
  logger.info({ path: root }, "serving the dashboard");
  return true;
}
