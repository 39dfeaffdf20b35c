/**
 * Security headers on every answer of the reporter's server (dashboard, login pages and API):
 * `Content-Security-Policy`, `X-Frame-Options: DENY` and `X-Content-Type-Options: nosniff`.
 *
 * The policy allows what the dashboard needs and nothing else: scripts and styles from the
 * server itself (Mantine sets inline `style` attributes and one `<style>` element, so styles also
 * allow `'unsafe-inline'`), images and fonts from itself or `data:`, API calls to itself and to
 * `ui.apiUrl` when the API lives elsewhere, no plugins, no framing. An inline `<script>` of a page
 * the server renders (the sign-in redirect) is allowed by its SHA-256 hash, computed when sent.
 */
import { createHash } from "node:crypto";
import type { FastifyInstance } from "fastify";

/** Options of {@link registerSecurityHeaders}. */
export interface SecurityHeadersOptions {
  /** `ui.apiUrl`: the API's origin is added to `connect-src`. */
  apiUrl?: string;
}

function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const origin = new URL(url).origin;
    return origin === "null" ? undefined : origin;
  } catch {
    return undefined;
  }
}

/** `'sha256-…'` of every inline `<script>` (without `src`) of an HTML page. */
export function inlineScriptHashes(html: string): string[] {
  const out: string[] = [];
  for (const m of html.matchAll(/<script(\s[^>]*)?>([\s\S]*?)<\/script>/gi)) {
    if (/\ssrc\s*=/i.test(m[1] ?? "") || !m[2]) continue;
    out.push(`'sha256-${createHash("sha256").update(m[2], "utf8").digest("base64")}'`);
  }
  return out;
}

/** The Content-Security-Policy value. */
export function contentSecurityPolicy(options: { apiUrl?: string; scriptHashes?: readonly string[] } = {}) {
  const api = originOf(options.apiUrl);
  return [
    "default-src 'self'",
    ["script-src 'self'", ...(options.scriptHashes ?? [])].join(" "),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    ["connect-src 'self'", ...(api ? [api] : [])].join(" "),
    "object-src 'none'",
    "base-uri 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** Adds the headers to every answer of `app` (a route that set its own policy keeps it). */
export function registerSecurityHeaders(app: FastifyInstance, options: SecurityHeadersOptions = {}): void {
  const base = contentSecurityPolicy(options.apiUrl ? { apiUrl: options.apiUrl } : {});
  app.addHook("onSend", async (_request, reply, payload) => {
    reply.header("x-content-type-options", "nosniff");
    reply.header("x-frame-options", "DENY");
    if (reply.hasHeader("content-security-policy")) return payload;
    const type = String(reply.getHeader("content-type") ?? "");
    const hashes =
      typeof payload === "string" && type.startsWith("text/html") ? inlineScriptHashes(payload) : [];
    reply.header(
      "content-security-policy",
      hashes.length === 0
        ? base
        : contentSecurityPolicy({
            ...(options.apiUrl ? { apiUrl: options.apiUrl } : {}),
            scriptHashes: hashes,
          }),
    );
    return payload;
  });
}
