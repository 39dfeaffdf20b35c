/**
 * Browser tests of the login: the reporter with OpenID Connect against a real local provider
 * (`oidc-provider`), the basic-auth form and access control by group, driven in Debian's chromium.
 * A user signs in through the provider, filters, opens a resource and copies its exception; a
 * user outside the allowed groups gets the 403 page; basic auth and sign-out work; an API 401
 * sends the dashboard back to the sign-in page. Screenshots go to `.artifacts/screenshots/`.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { hasChromium, type launchBrowser, openBrowserPage } from "@kyverno-ts/testing";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./build.ts";
import { freePort, type LoginServer, startLoginServer } from "./login-server.ts";
import { listenTestProvider, type TestProvider } from "./oidc.ts";

const SHOTS = join(process.cwd(), ".artifacts", "screenshots");
const runs = hasChromium || process.env.CI === "true";

describe.runIf(runs)("login in chromium", { timeout: 30_000 }, () => {
  let provider: TestProvider;
  let reporter: LoginServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let settle: () => Promise<void>;
  const title = () => page.getByTestId("page-title").textContent();
  const hash = () => decodeURIComponent(new URL(page.url()).hash);
  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

  /** Signs in at the provider's development form (and grants consent when it asks). */
  const providerLogin = async (login: string) => {
    await page.getByRole("link", { name: "Sign in with OpenID Connect" }).click();
    await page.locator("input[name=login]").fill(login);
    await page.locator("input[name=password]").fill("any");
    await page.locator("button[type=submit]").click();
    const consent = page.getByRole("button", { name: "Continue" });
    await page.waitForURL(
      (url) => url.origin === new URL(reporter.url).origin || url.pathname.includes("/interaction/"),
    );
    if (new URL(page.url()).pathname.includes("/interaction/")) await consent.click();
    await page.waitForURL((url) => url.origin === new URL(reporter.url).origin);
  };

  beforeAll(async () => {
    ensureBuilt();
    mkdirSync(SHOTS, { recursive: true });
    provider = await listenTestProvider({
      alice: { name: "Alice Admin", email: "alice@example.com", groups: ["platform", "dev"] },
      mallory: { name: "Mallory", email: "mallory@example.com", groups: ["guests"] },
    });
    const port = await freePort();
    const callbackUrl = `http://127.0.0.1:${port}/callback`;
    provider.start({ clientId: "policy-reporter", clientSecret: "s3cret", redirectUri: callbackUrl });
    reporter = await startLoginServer(port, {
      openIDConnect: {
        enabled: true,
        discoveryUrl: provider.issuer,
        callbackUrl,
        clientId: "policy-reporter",
        clientSecret: "s3cret",
        groupClaim: "groups",
        scopes: ["openid", "profile", "email", "groups"],
      },
      basicAuth: { username: "admin", password: "pa55word" },
      sessions: { secret: "browser-test-session-secret", maxAge: 3600 },
      boards: { accessControl: { emails: [], groups: ["platform"] } },
      clusters: [{ name: "Default", accessControl: { emails: ["alice@example.com"], groups: [] } }],
    });
    ({ browser, page, settle } = await openBrowserPage(reporter.url));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await reporter?.close();
    await provider?.close();
  });

  it("signs in through the OpenID provider, filters, opens a resource and copies its exception", async () => {
    await page.goto(`${reporter.url}#/policies`);
    await page.waitForURL(
      (url) => url.pathname === "/login" && url.searchParams.get("returnTo") === "#/policies",
    );
    await shot("login");
    await providerLogin("alice");
    await settle();
    expect(await title()).toBe("Policies");
    expect(await page.getByTestId("user-name").textContent()).toBe("Alice Admin");

    await page.goto(`${reporter.url}#/`);
    await expect.poll(title).toBe("Dashboard");
    await settle();
    await page.locator("[data-filter=namespaces]").fill("shop");
    await page.getByRole("option", { name: "shop", exact: true }).click();
    await page.keyboard.press("Escape");
    await expect.poll(hash).toContain("namespaces=shop");
    await settle();
    await page.locator("[data-filter=severities]").fill("high");
    await page.getByRole("option", { name: "high", exact: true }).click();
    await page.keyboard.press("Escape");
    await expect.poll(hash).toMatch(/namespaces=shop.*severities=high|severities=high.*namespaces=shop/);
    const nsCells = () => page.getByTestId("table-r").locator("tbody tr td:nth-child(2)").allTextContents();
    await expect.poll(async () => [...new Set(await nsCells())]).toEqual(["shop"]);
    await shot("login-dashboard-filtered");

    await page.goto(`${reporter.url}#/?namespaces=shop&kinds=Deployment&search=checkout`);
    await settle();
    await page.getByTestId("table-r").getByRole("link", { name: "checkout" }).click();
    await expect.poll(title).toBe("checkout");
    await settle();
    const yaml = (await page.getByTestId("exception-yaml").textContent()) ?? "";
    expect(yaml).toContain("kind: PolicyException");
    await page.getByRole("button", { name: "Copy YAML" }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${yaml.trimEnd()}\n`);
  });

  it("sends the dashboard back to the sign-in page when the session is gone, and signs out", async () => {
    await page.goto(`${reporter.url}#/namespaces`);
    await settle();
    const cookies = await browser.context.cookies(reporter.url);
    const session = cookies.find((c) => c.name === "policy-reporter-session");
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe("Lax");
    // The session ends (expired, or cleared): the next API call answers 401 and the UI goes to login.
    await browser.context.clearCookies({ name: "policy-reporter-session" });
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Policies" }).click();
    await page.waitForURL((url) => url.pathname === "/login");
    expect(new URL(page.url()).searchParams.get("returnTo")).toMatch(/^#\/policies/);
    // The provider still knows alice: signing in again needs no password, and returns to the view.
    await page.getByRole("link", { name: "Sign in with OpenID Connect" }).click();
    await page.waitForURL((url) => url.origin === new URL(reporter.url).origin && url.pathname === "/");
    await settle();
    expect(await title()).toBe("Policies");

    await page.getByRole("button", { name: "Sign out Alice Admin" }).click();
    await page.waitForURL((url) => url.pathname === "/login");
    const api = await page.request.get(`${reporter.url}v2/namespaces`);
    expect(api.status()).toBe(401);
  });

  it("refuses a user outside the allowed groups with a 403 page", async () => {
    await browser.context.clearCookies();
    await page.goto(`${reporter.url}login`);
    await providerLogin("mallory");
    await page.waitForLoadState();
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Access denied");
    expect(await page.getByRole("alert").textContent()).toContain("mallory@example.com");
    const again = await page.goto(reporter.url);
    expect(again?.status()).toBe(403);
    expect((await page.request.get(`${reporter.url}v2/namespaces`)).status()).toBe(403);
    await shot("login-denied");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL((url) => url.pathname === "/login");
  });

  it("signs in with the basic-auth form", async () => {
    await browser.context.clearCookies();
    await page.goto(`${reporter.url}#/targets`);
    await page.waitForURL((url) => url.pathname === "/login");
    await page.getByLabel("Username").fill("admin");
    await page.getByLabel("Password").fill("wrong");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    expect(await page.getByRole("alert").textContent()).toContain("Wrong username or password");
    await page.getByLabel("Username").fill("admin");
    await page.getByLabel("Password").fill("pa55word");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL((url) => url.pathname === "/");
    await settle();
    expect(await title()).toBe("Notification targets");
    expect(await page.getByTestId("user-name").textContent()).toBe("admin");
    await page.getByRole("button", { name: "Sign out admin" }).click();
    await page.waitForURL((url) => url.pathname === "/login");
  });
});
