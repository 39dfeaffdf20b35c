/**
 * Browser tests of the dashboard: the built UI served with a seeded reporter API, driven in
 * Debian's chromium. They filter, open a resource, copy its PolicyException, navigate by
 * keyboard, check contrast in both themes, and write screenshots to `.artifacts/screenshots/`.
 * Skipped when chromium is missing outside CI (`scripts/ensure-chromium.sh` installs it).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { hasChromium, type launchBrowser, openBrowserPage, settler } from "@kyverno-ts/testing";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DemoServer, startDemoServer } from "../../scripts/demo-server.ts";
import { ensureBuilt } from "./build.ts";
import { measureContrast } from "./contrast.ts";

const SHOTS = join(process.cwd(), ".artifacts", "screenshots");
const runs = hasChromium || process.env.CI === "true";

describe.runIf(runs)("dashboard in chromium", { timeout: 30_000 }, () => {
  let demo: DemoServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  const route = (path: string) => `${demo.url}#${path}`;
  const shot = async (name: string) => {
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  };
  const hash = () => decodeURIComponent(new URL(page.url()).hash);
  const title = () => page.getByTestId("page-title").textContent();
  let settle: () => Promise<void>;

  beforeAll(async () => {
    ensureBuilt();
    mkdirSync(SHOTS, { recursive: true });
    demo = await startDemoServer();
    ({ browser, page, settle } = await openBrowserPage(demo.url));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await demo?.close();
  });

  it("shows totals, charts and tables on the dashboard", async () => {
    await page.goto(route("/"));
    await settle();
    expect(await title()).toBe("Dashboard");
    expect(Number(await page.getByTestId("stat-fail").locator("p").last().textContent())).toBeGreaterThan(0);
    await expect.poll(() => page.locator(".recharts-bar-rectangle").count()).toBeGreaterThan(5);
    expect(await page.getByTestId("table-c").locator("tbody tr").count()).toBeGreaterThan(0);
    expect(await page.getByTestId("table-r").locator("tbody tr").count()).toBe(25);
    await shot("dashboard-light");
  });

  it("filters by namespace and severity, keeps the filters in the URL, and pages on the server", async () => {
    await page.goto(route("/"));
    await settle();
    const namespaces = page.locator("[data-filter=namespaces]");
    await namespaces.fill("shop");
    await page.getByRole("option", { name: "shop", exact: true }).click();
    await page.keyboard.press("Escape");
    await expect.poll(hash).toContain("namespaces=shop");
    const nsCells = () => page.getByTestId("table-r").locator("tbody tr td:nth-child(2)").allTextContents();
    await expect.poll(async () => [...new Set(await nsCells())]).toEqual(["shop"]);

    await page.locator("[data-filter=severities]").fill("high");
    await page.getByRole("option", { name: "high", exact: true }).click();
    await page.keyboard.press("Escape");
    await expect.poll(hash).toMatch(/namespaces=shop.*severities=high|severities=high.*namespaces=shop/);
    // The navigation carries the filters; results on the namespace page are all of high severity.
    const navNamespaces = page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Namespaces" });
    await expect.poll(() => navNamespaces.getAttribute("href")).toContain("severities=high");
    await navNamespaces.click();
    await expect.poll(hash).toMatch(/^#\/namespaces\?.*severities=high/);
    await page.getByTestId("table-namespaces").getByRole("link", { name: "shop" }).click();
    await expect.poll(title).toBe("shop");
    const severities = () =>
      page
        .getByTestId("table-n")
        .locator("[data-severity]")
        .evaluateAll((els) => [...new Set(els.map((e) => e.getAttribute("data-severity")))]);
    await expect.poll(severities).toEqual(["high"]);
    await page.goBack();
    await page.goBack();
    await expect.poll(title).toBe("Dashboard");

    // A shared link restores the view.
    const shared = page.url();
    await page.goto("about:blank");
    await page.goto(shared);
    await settle();
    await expect
      .poll(() => page.locator("[data-filter=namespaces]").locator("..").textContent())
      .toContain("shop");
    await shot("dashboard-filtered");

    // Server-side pagination: page 2 of the unfiltered resources is its own request.
    await page.goto(route("/?rsize=10"));
    await settle();
    const first = await page.getByTestId("table-r").locator("tbody tr").first().textContent();
    const pages = page.getByRole("navigation", { name: "Pages of resources" });
    const request = page.waitForRequest(
      (r) => r.url().includes("resource-results") && r.url().includes("page=2"),
    );
    await pages.getByRole("button", { name: "Page 2", exact: true }).click();
    await request;
    await expect.poll(hash).toContain("rpage=2");
    await expect
      .poll(() => page.getByTestId("table-r").locator("tbody tr").first().textContent())
      .not.toBe(first);
  });

  it("opens a resource and copies its PolicyException", async () => {
    await page.goto(route("/?namespaces=shop&kinds=Deployment&search=checkout"));
    await settle();
    await page.getByTestId("table-r").getByRole("link", { name: "checkout" }).click();
    await expect.poll(title).toBe("checkout");
    await settle();
    const yaml = (await page.getByTestId("exception-yaml").textContent()) ?? "";
    expect(yaml).toContain("apiVersion: kyverno.io/v2\nkind: PolicyException");
    expect(yaml).toMatch(/- policyName: [a-z-]+\n\s+ruleNames:\n\s+- autogen-/);
    expect(yaml).toContain("names:\n            - checkout\n          namespaces:\n            - shop");
    expect(await page.getByTestId("table-p").locator("tbody tr").count()).toBeGreaterThan(3);
    await page.getByRole("button", { name: "Copy YAML" }).click();
    await expect.poll(() => page.getByRole("status").filter({ hasText: "Copied" }).count()).toBe(1);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${yaml.trimEnd()}\n`);
    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Download YAML" }).click();
    expect((await download).suggestedFilename()).toBe("deployment-checkout-exception.yaml");
    await shot("resource");
  });

  it("works with the keyboard: skip link, navigation, filters", async () => {
    await page.goto(route("/"));
    await page.reload();
    await settle();
    const focused = () =>
      page.evaluate(() => {
        const e = document.activeElement;
        return {
          id: e?.id ?? "",
          text: e?.textContent?.trim() ?? "",
          filter: e?.getAttribute("data-filter") ?? "",
          outline: e ? getComputedStyle(e).outlineStyle : "",
        };
      });
    await page.keyboard.press("Tab");
    expect((await focused()).text).toBe("Skip to content");
    await page.keyboard.press("Enter");
    expect((await focused()).id).toBe("main");

    await page.reload();
    await settle();
    let reached = false;
    for (let i = 0; i < 20 && !reached; i++) {
      await page.keyboard.press("Tab");
      reached = (await focused()).text === "Policies";
    }
    expect(reached).toBe(true);
    expect((await focused()).outline, "the focused link shows a focus ring").toBe("solid");
    await page.keyboard.press("Enter");
    await expect.poll(title).toBe("Policies");
    await expect.poll(hash).toMatch(/^#\/policies/);

    // Focus moved to the new page; Tab reaches the first filter, typing and Enter pick a value.
    expect((await focused()).id).toBe("main");
    await page.keyboard.press("Tab");
    expect((await focused()).filter).toBe("sources");
    await page.keyboard.type("trivy");
    // The options load when the filters get focus (or once the page is idle): wait for the match.
    await page.getByRole("option", { name: "trivy", exact: true }).waitFor();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await expect.poll(hash).toContain("sources=trivy");
    await expect.poll(() => page.getByTestId("table-policies").locator("tbody tr").count()).toBe(5);
  });

  it("keeps text readable in light and dark themes and the colour-blind palette", async () => {
    for (const scheme of ["light", "dark"] as const) {
      await page.goto(route("/policies"));
      await page.evaluate((s) => localStorage.setItem("policy-reporter-color-scheme", s), scheme);
      await page.reload();
      await settle();
      const samples = await measureContrast(page, "td, th, p, a, [data-severity], [data-status] span, label");
      const low = samples.filter((s) => s.ratio < 4.5);
      expect(low, `${scheme}: ${JSON.stringify(low.slice(0, 5))}`).toEqual([]);
      expect(samples.length).toBeGreaterThan(50);
    }
    await page.goto(route("/"));
    await settle();
    await shot("dashboard-dark");
    await page.getByRole("switch", { name: "Colour-blind" }).check();
    await page.evaluate(() => localStorage.setItem("policy-reporter-color-scheme", "light"));
    await page.reload();
    await settle();
    expect(await page.getByRole("switch", { name: "Colour-blind" }).isChecked()).toBe(true);
    await shot("dashboard-colorblind");
    await page.getByRole("switch", { name: "Colour-blind" }).uncheck();
  });

  it("renders the other pages", async () => {
    const pages: Array<[string, string, string]> = [
      ["/sources/kyverno", "kyverno", "source-kyverno"],
      ["/namespaces", "Namespaces", "namespaces"],
      ["/namespaces/shop", "shop", "namespace-shop"],
      ["/policies", "Policies", "policies"],
      ["/policies/kyverno/disallow-latest-tag", "disallow-latest-tag", "policy"],
      ["/targets", "Notification targets", "targets"],
    ];
    for (const [path, heading, name] of pages) {
      await page.goto(route(path));
      await settle();
      expect(await title()).toBe(heading);
      expect(await page.getByRole("alert").count(), `${path} shows an error`).toBe(0);
      await shot(name);
    }
    expect(await page.getByTestId("table-targets").locator("tbody tr").count()).toBe(3);
  });

  it("starts each page's requests before React renders, and the page adopts every one", async () => {
    const probe = await fetch(`${demo.url}v2/namespace-scoped/resource-results?page=1&offset=1`);
    const resourceId = ((await probe.json()) as { items: { id: string }[] }).items[0]?.id ?? "";
    const paths = [
      "/",
      "/?namespaces=shop&severities=high&rpage=2&csize=10",
      "/sources/kyverno",
      "/namespaces",
      "/namespaces/shop",
      "/policies",
      "/policies/kyverno/disallow-latest-tag",
      "/policies/trivy/some-check",
      `/resources/${encodeURIComponent(resourceId)}`,
      "/targets",
    ];
    for (const path of paths) {
      // A new document per route: the preload runs when the entry module does.
      const fresh = await browser.context.newPage();
      await fresh.goto(route(path));
      await settler(fresh)();
      const marks = await fresh.evaluate(() =>
        performance
          .getEntriesByType("mark")
          .map((m) => ({ name: m.name, key: String((m as PerformanceMark).detail) })),
      );
      await fresh.close();
      const preloaded = marks.filter((m) => m.name === "query-preload").map((m) => m.key);
      const adopted = new Set(marks.filter((m) => m.name === "query-adopt").map((m) => m.key));
      expect(preloaded.length, path).toBeGreaterThan(1);
      expect(
        preloaded.filter((key) => !adopted.has(key)),
        `${path}: preloaded but never used`,
      ).toEqual([]);
    }
  }, 120_000); // ten fresh documents, each loaded and settled: ~30 s on a busy 2-core machine

  it("shows a new violation once it is reported", async () => {
    await page.goto(route("/?search=rogue-miner"));
    await settle();
    expect(await page.getByTestId("table-r").locator("tbody tr").count()).toBe(0);
    await demo.ingest([
      {
        apiVersion: "wgpolicyk8s.io/v1alpha2",
        kind: "PolicyReport",
        metadata: { name: "rogue", namespace: "shop" },
        scope: { apiVersion: "v1", kind: "Pod", name: "rogue-miner", namespace: "shop", uid: "uid-rogue" },
        results: [
          {
            source: "kyverno",
            policy: "disallow-privileged-containers",
            rule: "privileged-containers",
            result: "fail",
            severity: "high",
            category: "Pod Security Standards (Baseline)",
            message: "validation error: Privileged mode is disallowed.",
            timestamp: { seconds: 1_767_700_000, nanos: 0 },
          },
        ],
      },
    ]);
    await page.reload();
    await settle();
    expect(await page.getByTestId("table-r").getByRole("link", { name: "rogue-miner" }).count()).toBe(1);
  });
});
