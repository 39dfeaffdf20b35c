/**
 * Browser test of the policy page: a Kyverno policy's description, category, severity and YAML
 * (copied to the clipboard) above its results; a policy the cluster no longer has, a non-Kyverno
 * source and a reporter that watches no policies say so plainly. Screenshots go to
 * `.artifacts/screenshots/`.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { hasChromium, type launchBrowser, openBrowserPage } from "@kyverno-ts/testing";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DemoServer, startDemoServer } from "../../scripts/demo-server.ts";
import { ensureBuilt } from "./build.ts";

const SHOTS = join(process.cwd(), ".artifacts", "screenshots");
const runs = hasChromium || process.env.CI === "true";

describe.runIf(runs)("policy page in chromium", { timeout: 30_000 }, () => {
  let demo: DemoServer;
  let outside: DemoServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let settle: () => Promise<void>;
  const missing = () => page.getByTestId("policy-details-missing").textContent();

  beforeAll(async () => {
    ensureBuilt();
    mkdirSync(SHOTS, { recursive: true });
    demo = await startDemoServer();
    outside = await startDemoServer({ policyDetails: false });
    ({ browser, page, settle } = await openBrowserPage(demo.url));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await demo?.close();
    await outside?.close();
  });

  it("shows the description, category, severity and YAML above the results, and copies the YAML", async () => {
    await page.goto(`${demo.url}#/policies/kyverno/disallow-privileged-containers`);
    await settle();
    expect(await page.getByTestId("page-title").textContent()).toBe("disallow-privileged-containers");
    const details = page.getByRole("region", { name: "Policy", exact: true });
    expect(await details.getByText("Disallow Privileged Containers", { exact: true }).count()).toBe(1);
    expect(await page.getByTestId("policy-description").textContent()).toMatch(
      /^Privileged mode is disallowed/,
    );
    expect(await page.getByTestId("policy-category").textContent()).toBe("Pod Security Standards (Baseline)");
    expect(await details.locator("[data-severity]").textContent()).toBe("high");
    expect(await details.getByText("Enforce", { exact: true }).count()).toBe(1);
    expect(await details.getByText("privileged-containers · validate").count()).toBe(1);
    const yaml = (await page.getByTestId("policy-yaml").textContent()) ?? "";
    expect(yaml).toMatch(
      /^apiVersion: kyverno.io\/v1\nkind: ClusterPolicy\nmetadata:\n {2}name: disallow-privileged-containers\n/,
    );
    expect(yaml).not.toContain("managedFields");
    expect(yaml).not.toContain("last-applied-configuration");

    // The details come before the results, which are still there.
    const order = await page.evaluate(() => {
      const a = document.querySelector('[data-testid="policy-yaml"]');
      const b = document.querySelector('[data-testid="table-n"]');
      return a && b ? a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING : 0;
    });
    expect(order).toBeGreaterThan(0);
    expect(await page.getByTestId("table-n").locator("tbody tr").count()).toBeGreaterThan(0);

    await details.getByRole("button", { name: "Copy YAML" }).click();
    await expect.poll(() => details.getByRole("status").filter({ hasText: "Copied" }).count()).toBe(1);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(yaml);
    expect(await page.getByRole("alert").count()).toBe(0);
    await page.screenshot({ path: join(SHOTS, "policy-details.png"), fullPage: true });
  });

  it("says when the cluster has no such policy, or the source has no policy details", async () => {
    await page.goto(`${demo.url}#/policies/kyverno/require-argocd-management`);
    await settle();
    expect(await missing()).toMatch(
      /^No ClusterPolicy or Policy named require-argocd-management is in the cluster/,
    );
    expect(await page.getByTestId("table-n").locator("tbody tr").count()).toBeGreaterThan(0);
    expect(await page.getByRole("alert").count()).toBe(0);

    await page.goto(`${demo.url}#/policies/trivy/CVE-2024-6387`);
    await settle();
    expect(await missing()).toMatch(/^Policy details come from Kyverno policies; trivy reports only results/);
  });

  it("says plainly that there are no details when the reporter watches no policies", async () => {
    await page.goto(`${outside.url}#/policies/kyverno/disallow-latest-tag`);
    await settle();
    expect(await missing()).toMatch(
      /^Policy details are not available: this reporter does not watch Kyverno policies/,
    );
    expect(await page.getByRole("alert").count()).toBe(0);
    expect(await page.getByTestId("table-n").locator("tbody tr").count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(SHOTS, "policy-no-details.png"), fullPage: true });
  });
});
