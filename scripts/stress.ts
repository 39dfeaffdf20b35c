// Hostile-load stress run (not a test; bounded in time and count, loopback only). Replays the cases of
// issue 17 against the three servers as a user starts them (the CLI's bin, each in its own process):
//   admission controller (`kyverno-ts admission --standalone`, an Enforce policy denying privileged
//     Pods): malformed AdmissionReviews of many kinds, idle and slow (byte-a-second) TLS connections,
//     a burst of ordinary reviews (half must be denied), a SIGKILL and restart;
//   reports controller (`kyverno-ts reports` on a sandbox API server): Pods created while it scans, a
//     SIGKILL mid-scan and a restart, then one PolicyReport per Pod;
//   Policy Reporter (`kyverno-ts reporter` on the same sandbox, SQLite): SQL-injection-ish and XSS
//     query strings on every list route, a SIGKILL and a restart.
// Prints what held: errors (5xx, resets, hangs), wrong answers (a privileged Pod allowed, an injected
// string reflected unescaped, a report missing), p99 of ordinary traffic, peak RSS (VmHWM) per process.
// Exits 1 when anything did not hold. Usage: npm run stress [-- --burst 2000 --idle 300 --pods 60]
// Needs Linux (/proc) and the packages built (npm run build).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type TLSSocket, connect as tlsConnect } from "node:tls";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("..", import.meta.url));
const cliBin = fileURLToPath(new URL("../packages/cli/dist/bin.js", import.meta.url));
const crds = fileURLToPath(new URL("../../shared/reference/kyverno-crds/", import.meta.url));

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i > 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(value) || value <= 0 || value > 100_000)
    throw new Error(`--${name} must be 1..100000`);
  return value;
}
const BURST = flag("burst", 2000);
const IDLE = flag("idle", 300);
const SLOW = flag("slow", 20);
const PODS = flag("pods", 60);

// ---------------------------------------------------------------- bookkeeping

interface Tally {
  requests: number;
  errors: string[];
  wrong: string[];
}
const tallies = new Map<string, Tally>();
const tally = (part: string): Tally => {
  const t = tallies.get(part) ?? { requests: 0, errors: [], wrong: [] };
  tallies.set(part, t);
  return t;
};
const notes: string[] = [];
const peaks = new Map<string, number>();

function peakRss(name: string, child: ChildProcess): void {
  try {
    const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
    const mib = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    peaks.set(name, Math.max(peaks.get(name) ?? 0, mib));
  } catch {
    // exited
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, ms: number, check: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch {
      // not yet
    }
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(100);
  }
}

// ---------------------------------------------------------------- processes

function start(name: string, args: string[], ready: RegExp): Promise<{ child: ChildProcess; out: string }> {
  const child = spawn(process.execPath, [cliBin, ...args], { cwd: repo, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr?.on("data", (c: Buffer) => {
    err = (err + c.toString()).slice(-4000);
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name} did not start in 90 s:\n${out}\n${err}`)),
      90_000,
    );
    child.stdout?.on("data", (c: Buffer) => {
      out += c.toString();
      if (ready.test(out)) {
        clearTimeout(timer);
        resolve({ child, out });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code}) before it was ready:\n${out}\n${err}`));
    });
  });
}

async function kill(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill(signal);
  await exited;
}

// ---------------------------------------------------------------- admission

const PRIVILEGED_POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: disallow-privileged
spec:
  validationFailureAction: Enforce
  background: true
  rules:
    - name: privileged
      match:
        any:
          - resources:
              kinds: [Pod]
      validate:
        message: privileged containers are not allowed
        pattern:
          spec:
            containers:
              - =(securityContext):
                  =(privileged): "false"
`;

function pod(name: string, privileged: boolean): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default" },
    spec: { containers: [{ name: "c", image: "nginx:1.27", securityContext: { privileged } }] },
  };
}

function reviewOf(uid: string, object: unknown): Record<string, unknown> {
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid,
      kind: { group: "", version: "v1", kind: "Pod" },
      resource: { group: "", version: "v1", resource: "pods" },
      requestKind: { group: "", version: "v1", kind: "Pod" },
      name: "p",
      namespace: "default",
      operation: "CREATE",
      userInfo: { username: "alice", groups: ["system:authenticated"] },
      object,
      dryRun: false,
    },
  };
}

let uidCounter = 0;
const nextUid = () => `00000000-0000-4000-8000-${String(++uidCounter).padStart(12, "0")}`;

/** Malformed reviews; each carries a privileged Pod where it can, so an "allowed" is a wrong answer. */
function malformed(): { name: string; body: string | Buffer; type?: string }[] {
  const privileged = pod("p", true);
  const good = JSON.stringify(reviewOf(nextUid(), privileged));
  const r = (mutate: (review: Record<string, unknown>, request: Record<string, unknown>) => void) => {
    const review = reviewOf(nextUid(), privileged);
    mutate(review, review.request as Record<string, unknown>);
    return JSON.stringify(review);
  };
  const cases: { name: string; body: string | Buffer; type?: string }[] = [
    { name: "empty body", body: "" },
    { name: "not JSON", body: "hello" },
    { name: "truncated", body: good.slice(0, good.length / 2) },
    { name: "trailing junk", body: `${good}}}` },
    { name: "JSON array", body: "[1,2,3]" },
    { name: "JSON null", body: "null" },
    { name: "JSON string", body: '"AdmissionReview"' },
    { name: "number", body: "1e309" },
    { name: "wrong apiVersion", body: r((v) => (v.apiVersion = "admission.k8s.io/v1beta1")) },
    { name: "no apiVersion", body: r((v) => delete v.apiVersion) },
    { name: "wrong kind", body: r((v) => (v.kind = "Pod")) },
    { name: "no request", body: r((v) => delete v.request) },
    { name: "request null", body: r((v) => (v.request = null)) },
    { name: "request array", body: r((v) => (v.request = [])) },
    { name: "no uid", body: r((_v, q) => delete q.uid) },
    { name: "uid number", body: r((_v, q) => (q.uid = 42)) },
    { name: "uid with quotes", body: r((_v, q) => (q.uid = 'x"},"allowed":true,"x":"')) },
    { name: "uid 10k", body: r((_v, q) => (q.uid = "u".repeat(10_000))) },
    { name: "object string", body: r((_v, q) => (q.object = "privileged")) },
    { name: "object array", body: r((_v, q) => (q.object = [privileged])) },
    { name: "no object (CREATE)", body: r((_v, q) => delete q.object) },
    { name: "UPDATE without oldObject", body: r((_v, q) => (q.operation = "UPDATE")) },
    { name: "DELETE without oldObject", body: r((_v, q) => (q.operation = "DELETE")) },
    { name: "operation lower-case", body: r((_v, q) => (q.operation = "create")) },
    { name: "operation unknown", body: r((_v, q) => (q.operation = "EXPLODE")) },
    { name: "kind missing", body: r((_v, q) => delete q.kind) },
    { name: "kind string", body: r((_v, q) => (q.kind = "Pod")) },
    {
      name: "kind mismatch (Deployment)",
      body: r((_v, q) => (q.kind = { group: "apps", version: "v1", kind: "Deployment" })),
    },
    { name: "userInfo string", body: r((_v, q) => (q.userInfo = "root")) },
    { name: "groups object", body: r((_v, q) => (q.userInfo = { username: "a", groups: { a: 1 } })) },
    { name: "namespace number", body: r((_v, q) => (q.namespace = 7)) },
    { name: "dryRun string", body: r((_v, q) => (q.dryRun = "yes")) },
    {
      name: "containers object",
      body: r((_v, q) => ((q.object as { spec: unknown }).spec = { containers: { a: 1 } })),
    },
    {
      name: "privileged string 'true'",
      body: r(
        (_v, q) =>
          (q.object = {
            ...privileged,
            spec: { containers: [{ name: "c", image: "x", securityContext: { privileged: "true" } }] },
          }),
      ),
    },
    {
      name: "duplicate keys",
      body: good.replace('"privileged":true', '"privileged":false,"privileged":true'),
    },
    {
      name: "__proto__ key",
      body: good.replace('"securityContext":{', '"securityContext":{"__proto__":{"privileged":false},'),
    },
    { name: "unicode escapes", body: good.replace('"nginx:1.27"', '"\\u0000\\ud800\\uffff"') },
    { name: "deep nesting 100k", body: `${"[".repeat(100_000)}${"]".repeat(100_000)}` },
    {
      name: "deep object in Pod",
      body: r(
        (_v, q) =>
          ((q.object as Record<string, unknown>).extra = JSON.parse(
            `${'{"a":'.repeat(3_000)}1${"}".repeat(3_000)}`,
          )),
      ),
    },
    {
      name: "4 MiB body",
      body: r((_v, q) => ((q.object as Record<string, unknown>).padding = "x".repeat(4 * 1024 * 1024))),
    },
    { name: "binary junk", body: Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)) },
    { name: "BOM prefix", body: `\ufeff${good}` },
    { name: "text/plain", body: good, type: "text/plain" },
    { name: "form content type", body: good, type: "application/x-www-form-urlencoded" },
    { name: "no content type", body: good, type: "" },
  ];
  return cases;
}

interface Answer {
  status: number;
  text: string;
  ms: number;
}

function post(
  agent: Agent | false,
  ca: string,
  port: number,
  path: string,
  body: string | Buffer,
  type = "application/json",
): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path,
        agent,
        ca,
        timeout: 30_000,
        headers: { ...(type ? { "content-type": type } : {}), "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString(),
            ms: performance.now() - started,
          }),
        );
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", (e) => resolve({ status: 0, text: String(e), ms: performance.now() - started }));
    req.end(body);
  });
}

function allowedIn(text: string): boolean | undefined {
  try {
    const allowed = (JSON.parse(text) as { response?: { allowed?: unknown } }).response?.allowed;
    return typeof allowed === "boolean" ? allowed : undefined;
  } catch {
    return undefined;
  }
}

async function admissionPart(dir: string): Promise<void> {
  const policies = join(dir, "policies");
  rmSync(policies, { recursive: true, force: true });
  writeFileSync(join(dir, "policy.yaml"), PRIVILEGED_POLICY);
  const args = [
    "admission",
    "--standalone",
    "--policies",
    join(dir, "policy.yaml"),
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    "--metrics-port",
    "0",
    "--log-level",
    "error",
  ];
  const ready = /caBundle: ([A-Za-z0-9+/=]+)\n/;
  const launch = async () => {
    const { child, out } = await start("admission", args, ready);
    const port = Number(/webhooks: https:\/\/[^\s]*:(\d+)/.exec(out)?.[1]);
    const ca = Buffer.from(ready.exec(out)?.[1] ?? "", "base64").toString("utf8");
    return { child, port, ca };
  };
  let server = await launch();
  const watch = setInterval(() => peakRss("admission", server.child), 200);
  const t = tally("admission");
  try {
    // 1. malformed reviews
    const cases = malformed();
    for (const c of cases) {
      const a = await post(false, server.ca, server.port, "/validate/fail", c.body, c.type);
      t.requests++;
      if (a.status === 0 || a.status >= 500)
        t.errors.push(`malformed "${c.name}": ${a.status} ${a.text.slice(0, 120)}`);
      if (allowedIn(a.text) === true) t.wrong.push(`malformed "${c.name}" was allowed`);
    }
    notes.push(`admission: ${cases.length} kinds of malformed AdmissionReviews`);

    // 2. idle and slow TLS connections held open during the burst
    const sockets: TLSSocket[] = [];
    for (let i = 0; i < IDLE; i++)
      sockets.push(tlsConnect({ host: "127.0.0.1", port: server.port, ca: server.ca }).on("error", () => {}));
    const slowWriters: NodeJS.Timeout[] = [];
    for (let i = 0; i < SLOW; i++) {
      const s = tlsConnect({ host: "127.0.0.1", port: server.port, ca: server.ca }).on("error", () => {});
      sockets.push(s);
      const head = `POST /validate/fail HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{"apiVersion":`;
      let at = 0;
      slowWriters.push(setInterval(() => s.writable && at < head.length && s.write(head[at++] ?? ""), 1000));
    }
    await sleep(1000);

    // 3. burst of ordinary reviews (half privileged: must be denied), concurrency 32
    const agent = new Agent({ keepAlive: true, maxSockets: 32, ca: server.ca });
    const latencies: number[] = [];
    let next = 0;
    const worker = async () => {
      while (next < BURST) {
        const i = next++;
        const privileged = i % 2 === 0;
        const a = await post(
          agent,
          server.ca,
          server.port,
          "/validate/fail",
          JSON.stringify(reviewOf(nextUid(), pod(`p${i}`, privileged))),
        );
        t.requests++;
        latencies.push(a.ms);
        const allowed = allowedIn(a.text);
        if (a.status !== 200 || allowed === undefined)
          t.errors.push(`burst #${i}: ${a.status} ${a.text.slice(0, 120)}`);
        else if (allowed === privileged)
          t.wrong.push(`burst #${i}: privileged=${privileged} answered allowed=${allowed}`);
      }
    };
    const burstStart = performance.now();
    await Promise.all(Array.from({ length: 32 }, worker));
    const seconds = (performance.now() - burstStart) / 1000;
    const live = await post(
      false,
      server.ca,
      server.port,
      "/validate/fail",
      JSON.stringify(reviewOf(nextUid(), pod("after", false))),
    );
    notes.push(
      `admission: burst of ${BURST} reviews at concurrency 32 with ${IDLE} idle and ${SLOW} slow TLS connections open: ` +
        `${(BURST / seconds).toFixed(0)} req/s, p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms; ` +
        `a review after it: ${live.status} in ${live.ms.toFixed(1)} ms`,
    );
    for (const w of slowWriters) clearInterval(w);
    for (const s of sockets) s.destroy();
    agent.destroy();

    // 4. SIGKILL and restart
    await kill(server.child, "SIGKILL");
    const restartAt = performance.now();
    server = await launch();
    const after = await post(
      false,
      server.ca,
      server.port,
      "/validate/fail",
      JSON.stringify(reviewOf(nextUid(), pod("x", true))),
    );
    t.requests++;
    if (allowedIn(after.text) !== false)
      t.wrong.push(`after restart a privileged Pod got ${after.status} ${after.text.slice(0, 100)}`);
    notes.push(
      `admission: SIGKILL, restarted and denying again in ${((performance.now() - restartAt) / 1000).toFixed(1)} s`,
    );
  } finally {
    clearInterval(watch);
    peakRss("admission", server.child);
    await kill(server.child, "SIGTERM");
  }
}

// ---------------------------------------------------------------- cluster: reports controller and Policy Reporter

interface KubeLike {
  create(object: Record<string, unknown>): Promise<{ ok: boolean; status?: number; message?: string }>;
  list<T>(query: {
    apiVersion: string;
    kind: string;
    namespace?: string;
  }): Promise<{ ok: boolean; value?: { items: T[] } }>;
  close(): void;
}

async function clusterPart(dir: string): Promise<void> {
  const { startSandbox } = (await import(
    new URL("../packages/sandbox/dist/index.js", import.meta.url).href
  )) as {
    startSandbox: (o: unknown) => Promise<{ kubeconfigPath: string; stop(): Promise<void> }>;
  };
  const { createKubeClient } = (await import(
    new URL("../packages/kube/dist/index.js", import.meta.url).href
  )) as {
    createKubeClient: (o: unknown) => KubeLike;
  };
  const sandbox = await startSandbox({
    admission: false,
    dataDir: join(dir, "sandbox"),
    crds: [
      `${crds}kyverno/kyverno.io_clusterpolicies.yaml`,
      `${crds}kyverno/kyverno.io_policies.yaml`,
      `${crds}kyverno/kyverno.io_policyexceptions.yaml`,
      `${crds}policyreport/wgpolicyk8s.io_policyreports.yaml`,
      `${crds}policyreport/wgpolicyk8s.io_clusterpolicyreports.yaml`,
      `${crds}reports/reports.kyverno.io_ephemeralreports.yaml`,
      `${crds}reports/reports.kyverno.io_clusterephemeralreports.yaml`,
    ],
  });
  const kube = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
  const kc = ["--kubeconfig", sandbox.kubeconfigPath];
  const children: { name: string; child: ChildProcess }[] = [];
  const watch = setInterval(() => {
    for (const c of children) peakRss(c.name, c.child);
  }, 200);
  try {
    const policy = (await import("yaml")).parse(PRIVILEGED_POLICY) as Record<string, unknown>;
    (policy.spec as Record<string, unknown>).validationFailureAction = "Audit";
    // The controllers' Leases live in the kyverno namespace.
    await kube.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "kyverno" } });
    await kube.create(policy);
    const reportCount = async () => {
      const listed = await kube.list({
        apiVersion: "wgpolicyk8s.io/v1alpha2",
        kind: "PolicyReport",
        namespace: "default",
      });
      return listed.ok ? (listed.value?.items.length ?? 0) : -1;
    };

    // Reports controller: Pods arrive while it scans; SIGKILL mid-way; a restart finishes the job.
    const reportsArgs = [
      "reports",
      ...kc,
      "--host",
      "127.0.0.1",
      "--metrics-port",
      "0",
      "--backgroundScanInterval",
      "10s",
      "--log-level",
      "error",
    ];
    let reports = await start("reports", reportsArgs, /metrics: http/);
    children.push({ name: "reports controller", child: reports.child });
    const t = tally("reports controller");
    for (let i = 0; i < PODS; i++) {
      const created = await kube.create(pod(`stress-${i}`, i % 3 === 0));
      t.requests++;
      if (!created.ok) t.errors.push(`create pod ${i}: ${created.status} ${created.message}`);
      if (i === Math.floor(PODS / 2)) {
        await kill(reports.child, "SIGKILL");
        notes.push(
          `reports controller: SIGKILLed after ${i + 1} of ${PODS} Pods (${await reportCount()} reports written)`,
        );
        reports = await start("reports", reportsArgs, /metrics: http/);
        children.push({ name: "reports controller", child: reports.child });
      }
    }
    const converged = performance.now();
    try {
      await until("one PolicyReport per Pod", 90_000, async () =>
        (await reportCount()) >= PODS ? true : undefined,
      );
      notes.push(
        `reports controller: ${PODS} PolicyReports ${((performance.now() - converged) / 1000).toFixed(1)} s after the last Pod`,
      );
    } catch {
      t.wrong.push(`reports controller: ${await reportCount()} PolicyReports for ${PODS} Pods after 90 s`);
    }

    // Policy Reporter: hostile query strings, then SIGKILL and restart.
    const reporterArgs = [
      "reporter",
      ...kc,
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      "--sqlite",
      join(dir, "reports.db"),
    ];
    let reporter = await start("reporter", reporterArgs, /listening on (http:\S+)/);
    children.push({ name: "Policy Reporter", child: reporter.child });
    let base = /listening on (http:\S+)/.exec(reporter.out)?.[1] ?? "";
    await until("reporter ready", 60_000, async () =>
      (await fetch(`${base}/ready`)).status === 200 ? true : undefined,
    );
    const r = tally("Policy Reporter");
    const payloads = [
      "' OR '1'='1",
      "'; DROP TABLE results; --",
      '" OR 1=1 --',
      "1; SELECT pg_sleep(5)",
      "%' UNION SELECT name FROM sqlite_master --",
      "\\' OR 1=1 #",
      "<script>alert(1)</script>",
      '"><img src=x onerror=alert(1)>',
      "javascript:alert(1)",
      "{{7*7}}",
      ["$", "{jndi:ldap://x}"].join(""),
      "\u0000",
      "a".repeat(5000),
      "../../etc/passwd",
    ];
    const routes = [
      "/v1/namespaced-resources/results?namespaces=",
      "/v1/policy-reports?policies=",
      "/v1/namespaced-resources/status-counts?sources=",
      "/v2/namespace-scoped/results?page=1&search=",
      "/v2/namespace-scoped/results?page=1&sortBy=",
      "/v2/findings?namespaces=",
      "/v2/policies?kinds=",
      "/v2/resource/",
      "/v1/namespaced-resources/results?labels=",
      "/v2/namespace-scoped/results?page=",
      "/v2/namespace-scoped/results?page=1&offset=",
    ];
    const latencies: number[] = [];
    for (const route of routes)
      for (const payload of payloads) {
        const started = performance.now();
        const response = await fetch(`${base}${route}${encodeURIComponent(payload)}`).catch((e: unknown) =>
          String(e),
        );
        r.requests++;
        if (typeof response === "string") {
          r.errors.push(`${route}${payload.slice(0, 30)}: ${response}`);
          continue;
        }
        latencies.push(performance.now() - started);
        const text = await response.text();
        if (response.status >= 500)
          r.errors.push(`${route}${payload.slice(0, 30)}: ${response.status} ${text.slice(0, 100)}`);
        const type = response.headers.get("content-type") ?? "";
        if (payload.includes("<") && text.includes(payload) && !type.startsWith("application/json"))
          r.wrong.push(`${route}: ${JSON.stringify(payload)} reflected unescaped as ${type}`);
        if (!response.headers.get("x-content-type-options"))
          r.wrong.push(`${route}: no X-Content-Type-Options`);
      }
    const counts = (await (await fetch(`${base}/v1/policy-reports`)).json()) as { items: unknown[] };
    notes.push(
      `Policy Reporter: ${routes.length * payloads.length} injection / XSS requests, p99 ${percentile(latencies, 99).toFixed(1)} ms; ` +
        `${counts.items.length} reports listed afterwards`,
    );
    if (counts.items.length < PODS)
      r.wrong.push(`Policy Reporter lists ${counts.items.length} reports for ${PODS} Pods`);
    await kill(reporter.child, "SIGKILL");
    const restartAt = performance.now();
    reporter = await start("reporter", reporterArgs, /listening on (http:\S+)/);
    children.push({ name: "Policy Reporter", child: reporter.child });
    base = /listening on (http:\S+)/.exec(reporter.out)?.[1] ?? "";
    await until("reporter ready after SIGKILL", 60_000, async () =>
      (await fetch(`${base}/ready`)).status === 200 ? true : undefined,
    );
    const again = (await (await fetch(`${base}/v1/policy-reports`)).json()) as { items: unknown[] };
    r.requests++;
    if (again.items.length !== counts.items.length)
      r.wrong.push(`after SIGKILL and restart: ${again.items.length} reports, before ${counts.items.length}`);
    notes.push(
      `Policy Reporter: SIGKILL, restarted and ready with ${again.items.length} reports in ${((performance.now() - restartAt) / 1000).toFixed(1)} s`,
    );
  } finally {
    clearInterval(watch);
    for (const c of children) {
      peakRss(c.name, c.child);
      await kill(c.child, "SIGTERM");
    }
    kube.close();
    await sandbox.stop();
  }
}

// ---------------------------------------------------------------- main

const dir = mkdtempSync(join(tmpdir(), "kyverno-ts-stress-"));
const began = Date.now();
let failed = false;
// The whole run is bounded: a hang anywhere ends it as a failure.
const deadline = setTimeout(() => {
  process.stderr.write("stress run exceeded 10 minutes; aborting\n");
  process.exit(1);
}, 600_000);
try {
  await admissionPart(dir);
  await clusterPart(dir);
} catch (error) {
  failed = true;
  process.stderr.write(`stress run failed: ${error instanceof Error ? error.stack : String(error)}\n`);
} finally {
  clearTimeout(deadline);
  rmSync(dir, { recursive: true, force: true });
}
for (const line of notes) process.stdout.write(`${line}\n`);
process.stdout.write("\npart                 requests  errors  wrong answers\n");
for (const [part, t] of tallies) {
  process.stdout.write(
    `${part.padEnd(20)} ${String(t.requests).padStart(8)}  ${String(t.errors.length).padStart(6)}  ${String(t.wrong.length).padStart(13)}\n`,
  );
  for (const e of t.errors.slice(0, 5)) process.stdout.write(`  error: ${e}\n`);
  for (const w of t.wrong.slice(0, 5)) process.stdout.write(`  WRONG: ${w}\n`);
  if (t.errors.length > 0 || t.wrong.length > 0) failed = true;
}
process.stdout.write(
  `peak RSS (VmHWM): ${[...peaks].map(([n, m]) => `${n} ${m.toFixed(0)} MiB`).join(", ")}\n`,
);
process.stdout.write(
  `${failed ? "SOME CASES DID NOT HOLD" : "everything held"} (${((Date.now() - began) / 1000).toFixed(0)} s)\n`,
);
process.exit(failed ? 1 : 0);
