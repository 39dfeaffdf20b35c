// Dashboard benchmark (not a test): the reporter's API (SQLite file, filled through the real ingest
// with ~100,000 results of the demo data scaled up: ~18k reports in ~500 namespaces) and the built
// dashboard served as the reporter serves them, opened page by page in headless chromium.
// Per page: first meaningful paint (the page's main data element is in the DOM and a frame painted,
// timed in the page from navigation start), complete (no loader, no API request in flight), LCP,
// API requests and bytes. The floor, measured in the same run: the same pages with the same bundle
// over the plain demo data (~330 results; the same namespaces, policies and resources the pages
// open). Every page is loaded cold (HTTP cache off) and warm (assets cached, as on a repeat visit);
// runs interleave full and floor, so the load of the shared machine hits both alike.
// Goals (issue 8): first meaningful paint < 1 s on 100,000 results; no page downloads all results.
// Usage: npm run build && npm run bench:dashboard [-- --namespaces 500 --apps 12 --runs 5]
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { CDPSession, Page } from "playwright-core";
import {
  type ApiServer,
  createApiServer,
  createIngest,
  createPolicyCatalog,
  createStore,
  type ReportStore,
  registerDashboard,
} from "../packages/reporter/dist/index.js";
import { demoReports } from "../packages/reporter-ui/scripts/demo-data.ts";
import { demoPolicies } from "../packages/reporter-ui/scripts/demo-policies.ts";
import { ensureBuilt, PACKAGE_DIR } from "../packages/reporter-ui/src/e2e/build.ts";
import { CHROMIUM, launchBrowser } from "../packages/testing/src/browser.ts";

const { values } = parseArgs({
  options: {
    namespaces: { type: "string", default: "500" },
    apps: { type: "string", default: "12" },
    runs: { type: "string", default: "5" },
  },
});
const NAMESPACES = Number(values.namespaces);
const APPS = Number(values.apps);
const RUNS = Number(values.runs);
const FMP_GOAL_MS = 1000;
const BIG_RESPONSE = 1024 * 1024;

interface PageSpec {
  name: string;
  path: string;
  /** Selectors that must all match for the page's main content with data to be there. */
  main: string[];
}

interface Visit {
  fmp: number;
  complete: number;
  lcp: number;
  fcp: number;
  apiRequests: number;
  apiBytes: number;
  largestApi: number;
  totalBytes: number;
  unpaged: string[];
  /** The API request that took longest (request sent to body received). */
  slowest: { ms: number; path: string };
  /** Phases before the first meaningful paint (ms from navigation start; 0 when none). */
  phases: Phases;
}

/** Where a load spent its time before the first meaningful paint. */
interface Phases {
  /** The first API request sent (the entry module preloads the page's requests). */
  requests: number;
  /** The last API response received before the first meaningful paint. */
  data: number;
}

const MODES = ["cold", "warm"] as const;

interface Measured {
  full: Visit[];
  floor: Visit[];
}

const rows = (testId: string) => `[data-testid="${testId}"] tbody tr`;

async function seed(
  file: string,
  namespaces: number,
): Promise<{ store: ReportStore; reports: number; results: number; ms: number }> {
  const store = await createStore({ type: "sqlite", path: file });
  const ingest = createIngest({ store });
  const reports = demoReports({ extraNamespaces: namespaces, appsPerNamespace: APPS });
  const started = performance.now();
  const outcomes = await Promise.all(reports.map((report) => ingest.upsert(report)));
  await ingest.flush();
  await store.optimize();
  const ms = performance.now() - started;
  const bad = outcomes.filter((o) => o.status === "invalid" || o.status === "failed");
  if (bad.length > 0) throw new Error(`${bad.length} reports rejected: ${JSON.stringify(bad[0])}`);
  await ingest.close();
  const results = (await store.results({}, { page: 1, offset: 1 })).count;
  return { store, reports: reports.length, results, ms };
}

async function serve(store: ReportStore, root: string): Promise<{ api: ApiServer; url: string }> {
  const policies = createPolicyCatalog();
  policies.setWatched(["ClusterPolicy", "Policy"]);
  for (const policy of demoPolicies()) policies.upsert(policy);
  const api = await createApiServer({
    store,
    ready: true,
    policies,
    setup: (app) => registerDashboard(app, { root }),
  });
  const address = await api.listen({ port: 0, host: "127.0.0.1" });
  return { api, url: `${address.replace("0.0.0.0", "127.0.0.1")}/` };
}

/** Network accounting of one page through the DevTools protocol (encoded bytes on the wire). */
function account(cdp: CDPSession) {
  const urls = new Map<string, string>();
  const sizes = new Map<string, number>();
  const times = new Map<string, number>();
  cdp.on("Network.requestWillBeSent", (e) => {
    urls.set(e.requestId, e.request.url);
    times.set(e.requestId, e.timestamp);
  });
  cdp.on("Network.loadingFinished", (e) => {
    sizes.set(e.requestId, e.encodedDataLength);
    times.set(e.requestId, (e.timestamp - (times.get(e.requestId) ?? e.timestamp)) * 1000);
  });
  return () => {
    let slowest = { ms: 0, path: "" };
    let apiRequests = 0;
    let apiBytes = 0;
    let largestApi = 0;
    let totalBytes = 0;
    const unpaged: string[] = [];
    for (const [id, url] of urls) {
      const size = sizes.get(id) ?? 0;
      totalBytes += size;
      const path = new URL(url).pathname;
      if (!/^\/v[12]\//.test(path)) continue;
      apiRequests++;
      apiBytes += size;
      largestApi = Math.max(largestApi, size);
      const took = times.get(id) ?? 0;
      if (took > slowest.ms) slowest = { ms: took, path: `${path}${new URL(url).search}` };
      const list =
        /\/(results|resource-results|results-without-resources|policy-reports|cluster-policy-reports|resources)$/;
      if (list.test(path) && !new URL(url).searchParams.has("page")) unpaged.push(path);
      if (size > BIG_RESPONSE) unpaged.push(`${path} (${size} bytes)`);
    }
    return { apiRequests, apiBytes, largestApi, totalBytes, unpaged, slowest };
  };
}

const INIT = `(() => {
  const bench = (window.__bench = { inflight: 0, lcp: 0 });
  const fetch0 = window.fetch.bind(window);
  window.fetch = (...args) => {
    bench.inflight++;
    return fetch0(...args).then(async (res) => {
      const copy = res.clone();
      await copy.arrayBuffer().catch(() => undefined);
      bench.inflight--;
      return res;
    }, (err) => { bench.inflight--; throw err; });
  };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) bench.lcp = e.startTime;
  }).observe({ type: "largest-contentful-paint", buffered: true });
})();`;

async function visit(page: Page, cdp: CDPSession, url: string, main: string[]): Promise<Visit> {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => void (m.type() === "error" && errors.push(m.text())));
  try {
    return await measure(page, cdp, url, main);
  } catch (error) {
    await page.screenshot({ path: ".artifacts/bench-dashboard-failure.png" }).catch(() => undefined);
    throw new Error(`${url}: ${String(error)}; page errors: ${errors.join(" | ") || "none"}`);
  }
}

async function measure(page: Page, cdp: CDPSession, url: string, main: string[]): Promise<Visit> {
  const finish = account(cdp);
  await page.goto(url, { waitUntil: "commit" });
  // Polled every animation frame: the time the main content with data is first in the DOM (it is
  // painted in that frame).
  const fmp = (await (
    await page.waitForFunction(
      (selectors) => (selectors.every((s) => document.querySelector(s)) ? performance.now() : false),
      main,
      { polling: "raf", timeout: 60_000 },
    )
  ).jsonValue()) as number;
  const phases = await page.evaluate((before) => {
    const api = performance
      .getEntriesByType("resource")
      .filter((e) => /^\/v[12]\//.test(new URL(e.name).pathname)) as PerformanceResourceTiming[];
    const starts = api.map((e) => e.startTime);
    const ends = api.map((e) => e.responseEnd).filter((t) => t > 0 && t <= before);
    return { requests: starts.length ? Math.min(...starts) : 0, data: ends.length ? Math.max(...ends) : 0 };
  }, fmp);
  let complete = 0;
  for (let stable = 0; stable < 2; ) {
    const t = (await (
      await page.waitForFunction(
        () => {
          const b = (window as unknown as { __bench: { inflight: number } }).__bench;
          const loading = document.querySelector('[aria-label^="Loading"]');
          return b.inflight === 0 && !loading ? performance.now() : false;
        },
        undefined,
        { polling: "raf", timeout: 60_000 },
      )
    ).jsonValue()) as number;
    await new Promise((ok) => setTimeout(ok, 150));
    const still = await page.evaluate(
      () =>
        (window as unknown as { __bench: { inflight: number } }).__bench.inflight === 0 &&
        !document.querySelector('[aria-label^="Loading"]'),
    );
    if (still) {
      complete = complete || t;
      stable++;
    } else complete = 0;
  }
  const paint = await page.evaluate(() => ({
    lcp: (window as unknown as { __bench: { lcp: number } }).__bench.lcp,
    fcp: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? 0,
  }));
  const alerts = await page.getByRole("alert").count();
  if (alerts > 0) throw new Error(`${url} shows an error`);
  return { fmp, complete, ...paint, ...finish(), phases };
}

/** Prints rows as columns, the first row as the header. */
function printTable(table: string[][]): void {
  const widths = table[0]?.map((_, i) => Math.max(...table.map((r) => (r[i] ?? "").length))) ?? [];
  for (const [i, row] of table.entries()) {
    console.log(row.map((c, j) => c.padEnd(widths[j] ?? 0)).join("  "));
    if (i === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};
const ms = (x: number) => `${Math.round(x)}`;
const spread = (xs: number[]) => `${ms(median(xs))} (${ms(Math.min(...xs))}–${ms(Math.max(...xs))})`;
const kb = (x: number) => `${(x / 1024).toFixed(1)}`;

async function main(): Promise<void> {
  if (ensureBuilt()) console.log("built the dashboard (vite build)");
  const dir = mkdtempSync(join(tmpdir(), "bench-dashboard-"));
  console.log(`seeding: demo data with ${NAMESPACES} extra namespaces × ${APPS} apps …`);
  const full = await seed(join(dir, "full.db"), NAMESPACES);
  console.log(
    `seeded ${full.results} results in ${full.reports} reports (ingest ${(full.ms / 1000).toFixed(1)} s)`,
  );
  const small = await seed(join(dir, "floor.db"), 0);
  // A copy of the build: a rebuild of dist/ during the run (another checkout's tests) cannot break it.
  const root = join(dir, "ui");
  cpSync(join(PACKAGE_DIR, "dist"), root, { recursive: true });
  const withData = await serve(full.store, root);
  const floor = await serve(small.store, root);

  const probe = await fetch(
    `${withData.url}v2/namespace-scoped/resource-results?namespaces=shop&kinds=Deployment&search=checkout&page=1&offset=1`,
  );
  const resourceId = ((await probe.json()) as { items: { id: string }[] }).items[0]?.id ?? "";
  const all = await fetch(`${withData.url}v2/namespace-scoped/results`);
  const allBytes = (await all.arrayBuffer()).byteLength;

  const pages: PageSpec[] = [
    { name: "dashboard", path: "/", main: ['[data-testid="stat-fail"]', rows("table-r")] },
    { name: "namespaces", path: "/namespaces", main: [rows("table-namespaces")] },
    { name: "namespace (shop)", path: "/namespaces/shop", main: [rows("table-n")] },
    {
      name: "source (kyverno)",
      path: "/sources/kyverno",
      main: ['[data-testid="stat-fail"]', rows("table-r")],
    },
    { name: "policies", path: "/policies", main: [rows("table-policies")] },
    {
      name: "policy",
      path: "/policies/kyverno/disallow-latest-tag",
      main: ['[data-testid="policy-yaml"]', rows("table-n")],
    },
    { name: "resource", path: `/resources/${encodeURIComponent(resourceId)}`, main: [rows("table-p")] },
  ];

  const load = () =>
    loadavg()
      .map((x) => x.toFixed(1))
      .join(" ");
  const loadBefore = load();
  const browser = await launchBrowser(new URL(withData.url).origin);
  await browser.context.addInitScript(INIT);
  const measured = new Map<string, Measured>();
  try {
    for (let run = 0; run <= RUNS; run++) {
      for (const spec of pages) {
        for (const mode of MODES) {
          for (const target of ["full", "floor"] as const) {
            const page = await browser.context.newPage();
            const cdp = await browser.context.newCDPSession(page);
            await cdp.send("Network.enable");
            await cdp.send("Network.setCacheDisabled", { cacheDisabled: mode === "cold" });
            const base = target === "full" ? withData.url : floor.url;
            const v = await visit(page, cdp, `${base}#${spec.path}`, spec.main);
            await page.close();
            if (run === 0) continue; // warm-up pass: server JIT, SQLite page cache, HTTP cache
            const key = `${mode} ${spec.name}`;
            const entry = measured.get(key) ?? { full: [], floor: [] };
            entry[target].push(v);
            measured.set(key, entry);
          }
        }
      }
      if (run > 0) process.stdout.write(`run ${run}/${RUNS} done\n`);
    }
  } finally {
    await browser.close();
  }

  console.log(`\nchromium ${CHROMIUM}, ${RUNS} runs after a warm-up, full and floor interleaved`);
  console.log(`load average (1, 5, 15 min) before ${loadBefore}, after ${load()} on ${cpus().length} CPUs`);
  console.log(
    `all namespaced results in one response would be ${kb(allBytes)} KiB (${full.results} results)`,
  );
  let worst = 0;
  const problems: string[] = [];
  for (const mode of MODES) {
    const at = (spec: PageSpec) => measured.get(`${mode} ${spec.name}`);
    console.log(
      `\n${mode === "cold" ? "cold loads (HTTP cache off)" : "warm loads (assets from the HTTP cache, as on a repeat visit)"}; ms from navigation start: median (min–max)\n`,
    );
    const table = [
      ["page", "FMP", "complete", "LCP", "floor FMP", "FMP − floor", "API req", "API KiB", "max resp KiB"],
    ];
    for (const spec of pages) {
      const m = at(spec);
      if (!m) continue;
      const fmps = m.full.map((v) => v.fmp);
      if (mode === "cold") worst = Math.max(worst, median(fmps));
      for (const v of m.full) for (const u of v.unpaged) problems.push(`${spec.name}: ${u}`);
      table.push([
        spec.name,
        spread(fmps),
        spread(m.full.map((v) => v.complete)),
        spread(m.full.map((v) => v.lcp)),
        spread(m.floor.map((v) => v.fmp)),
        ms(median(fmps) - median(m.floor.map((v) => v.fmp))),
        String(m.full[0]?.apiRequests ?? 0),
        kb(median(m.full.map((v) => v.apiBytes))),
        kb(Math.max(...m.full.map((v) => v.largestApi))),
      ]);
    }
    printTable(table);
    const fcp = median(pages.flatMap((spec) => at(spec)?.floor.map((v) => v.fcp) ?? []));
    console.log(`\nbundle floor: first contentful paint of the app shell (floor runs) ${ms(fcp)} ms`);
    if (mode !== "cold") continue;
    console.log(
      "\nphases of the full loads, median ms from navigation start: first API request sent, shell painted (FCP),\nlast API response before the first meaningful paint, first meaningful paint",
    );
    const phaseRows = [["page", "requests sent", "FCP", "data in", "FMP"]];
    for (const spec of pages) {
      const m = at(spec);
      if (!m) continue;
      phaseRows.push([
        spec.name,
        ms(median(m.full.map((v) => v.phases.requests))),
        ms(median(m.full.map((v) => v.fcp))),
        ms(median(m.full.map((v) => v.phases.data))),
        ms(median(m.full.map((v) => v.fmp))),
      ]);
    }
    printTable(phaseRows);
    console.log("\nslowest API request per page (sent to received), median (min–max), and the slowest seen:");
    for (const spec of pages) {
      const m = at(spec);
      if (!m) continue;
      const slowest = m.full.reduce((a, v) => (v.slowest.ms > a.slowest.ms ? v : a)).slowest;
      console.log(`  ${spec.name.padEnd(18)} ${spread(m.full.map((v) => v.slowest.ms))} ms  ${slowest.path}`);
    }
  }
  console.log(
    `\nworst median cold FMP ${ms(worst)} ms (goal < ${FMP_GOAL_MS} ms): ${worst < FMP_GOAL_MS ? "met" : "NOT met"}`,
  );
  console.log(
    problems.length === 0
      ? "no page requested an unpaginated result list or an API response over 1 MiB"
      : `pages downloading too much:\n  ${[...new Set(problems)].join("\n  ")}`,
  );

  await withData.api.close();
  await floor.api.close();
  await full.store.close();
  await small.store.close();
  rmSync(dir, { recursive: true, force: true });
  if (worst >= FMP_GOAL_MS || problems.length > 0) process.exitCode = 1;
}

await main();
