import { createHash } from "node:crypto";
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { signInRedirectPage } from "../auth/pages.js";
import { contentSecurityPolicy, inlineScriptHashes, registerSecurityHeaders } from "./security-headers.js";

describe("security headers", () => {
  it("sends CSP, X-Frame-Options and X-Content-Type-Options on every answer, allowing a rendered page's inline script by hash", async () => {
    const app = Fastify();
    registerSecurityHeaders(app, { apiUrl: "https://reporter-api.example:8443/api" });
    const page = signInRedirectPage("/login");
    app.get("/signin", async (_req, reply) => reply.type("text/html; charset=utf-8").send(page));
    app.get("/v1/things", async () => ({ items: [] }));
    await app.ready();
    const script = /<script>([\s\S]*?)<\/script>/.exec(page)?.[1] ?? "";
    const hash = `'sha256-${createHash("sha256").update(script).digest("base64")}'`;
    const html = await app.inject({ url: "/signin" });
    expect(html.headers["x-frame-options"]).toBe("DENY");
    expect(html.headers["x-content-type-options"]).toBe("nosniff");
    expect(html.headers["content-security-policy"]).toContain(`script-src 'self' ${hash}`);
    const json = await app.inject({ url: "/v1/things" });
    const csp = String(json.headers["content-security-policy"]);
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("connect-src 'self' https://reporter-api.example:8443");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(json.headers["x-content-type-options"]).toBe("nosniff");
    const missing = await app.inject({ url: "/nope" });
    expect(missing.headers["x-frame-options"]).toBe("DENY");
    await app.close();
  });

  it("hashes inline scripts only, never one with src", () => {
    expect(inlineScriptHashes('<script type="module" src="./a.js"></script><p>x</p>')).toEqual([]);
    expect(inlineScriptHashes("<script>a()</script><script >b()</script>")).toHaveLength(2);
    expect(contentSecurityPolicy({ apiUrl: "not a url" })).toContain("connect-src 'self';");
  });
});
