/**
 * Launches Debian's chromium through playwright-core for the browser tests: headless, no
 * sandbox (root in CI), no network side-traffic, a fresh user-data-dir removed on close.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page, type Request } from "playwright-core";

/** Where chromium is expected (`scripts/ensure-chromium.sh` installs it). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Whether the browser is installed. */
export const hasChromium = existsSync(CHROMIUM);

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A browser context with its own profile; `close` removes the profile. */
export async function launchBrowser(
  origin: string,
  options: { enforceCsp?: boolean } = {},
): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = await mkdtemp(join(tmpdir(), "reporter-ui-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1400, height: 1000 },
    colorScheme: "light",
    reducedMotion: "reduce",
    // The settler's string predicates are evaluated in the page, which the reporter's
    // Content-Security-Policy forbids: only the CSP test (without the settler) enforces it.
    bypassCSP: options.enforceCsp !== true,
  });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Waits until the page has rendered a page title, shows no loader, and has had no API request
 * in flight for `quietMs` (React fetches in effects, a frame after rendering).
 */
export function settler(page: Page, quietMs = 150): () => Promise<void> {
  let inflight = 0;
  let last = Date.now();
  const api = (url: string) => /\/v[12]\//.test(url);
  page.on("request", (r) => {
    if (!api(r.url())) return;
    inflight++;
    last = Date.now();
  });
  const done = (r: Request) => {
    if (!api(r.url())) return;
    inflight--;
    last = Date.now();
  };
  page.on("requestfinished", done);
  page.on("requestfailed", done);
  return async () => {
    // Expressions as strings: they run in the page, and this file is type-checked without the DOM.
    await page.waitForFunction(
      `document.querySelector('[data-testid="page-title"]') && !document.querySelector('[aria-label^="Loading"]')`,
    );
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && (inflight > 0 || Date.now() - last < quietMs)) {
      await new Promise((ok) => setTimeout(ok, 25));
    }
    await page.waitForFunction(`!document.querySelector('[aria-label^="Loading"]')`);
  };
}

/**
 * A browser for the app at `url` with one page (10 s default timeout) and its `settler`: what every
 * browser test starts from.
 */
export async function openBrowserPage(url: string): Promise<{
  browser: Awaited<ReturnType<typeof launchBrowser>>;
  page: Page;
  settle: () => Promise<void>;
}> {
  const browser = await launchBrowser(new URL(url).origin);
  const page = await browser.context.newPage();
  page.setDefaultTimeout(10_000);
  return { browser, page, settle: settler(page) };
}
