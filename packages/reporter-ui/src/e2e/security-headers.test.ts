/**
 * The dashboard under the reporter's security headers: served as deployed (`registerUi` on the API
 * server), every answer carries `Content-Security-Policy`, `X-Frame-Options` and
 * `X-Content-Type-Options`, and the pages render in chromium without one policy violation.
 */

import { hasChromium, launchBrowser } from "@kyverno-ts/testing";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./build.ts";
import { freePort, type LoginServer, startLoginServer } from "./login-server.ts";

const runs = hasChromium || process.env.CI === "true";

describe.runIf(runs)("dashboard under its Content-Security-Policy", { timeout: 30_000 }, () => {
  let server: LoginServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;

  beforeAll(async () => {
    ensureBuilt();
    server = await startLoginServer(await freePort(), {});
    // The policy enforced, so no string evaluation in the page: locators only (they run isolated).
    browser = await launchBrowser(new URL(server.url).origin, { enforceCsp: true });
    page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("sends the three headers on the page, its assets and the API", async () => {
    const html = await fetch(server.url);
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(await html.text())?.[1];
    expect(script).toBeDefined();
    for (const url of [server.url, `${server.url}${script}`, `${server.url}v1/namespaces`]) {
      const response = url === server.url ? html : await fetch(url);
      expect(response.status).toBe(200);
      const csp = response.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain("'unsafe-eval'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });

  it("renders every page without a policy violation", async () => {
    const violations: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    await page.addInitScript(
      `document.addEventListener("securitypolicyviolation", (e) => console.error("Refused to load: " + e.violatedDirective + " " + e.blockedURI));`,
    );
    const titles: string[] = [];
    for (const path of [
      "/",
      "/namespaces",
      "/namespaces/shop",
      "/policies",
      "/targets",
      "/sources/kyverno",
    ]) {
      await page.goto(`${server.url}#${path}`);
      await page.getByTestId("page-title").waitFor();
      await page.locator('[aria-label^="Loading"]').first().waitFor({ state: "detached" });
      titles.push((await page.getByTestId("page-title").textContent()) ?? "");
    }
    expect(titles[0]).toBe("Dashboard");
    expect(titles.every((t) => t.length > 0)).toBe(true);
    // Charts are drawn (inline SVG styles pass the policy).
    await page.goto(`${server.url}#/`);
    await expect.poll(() => page.locator(".recharts-bar-rectangle").count()).toBeGreaterThan(5);
    expect(violations).toEqual([]);
  });
});
