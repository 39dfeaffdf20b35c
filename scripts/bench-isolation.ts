// Isolation benchmark (not a test): does one expensive admission review stall the others?
// Starts `kyverno-ts admission --standalone` (the CLI's built bin) with an ordinary ClusterPolicy on
// Pods and a tenant's namespaced Policy with a nested foreach (containers × containers), then sends
// ordinary Pod reviews (namespace default) at a fixed rate (open loop: sends never wait for answers;
// latency from each send, whose lateness against the schedule is printed apart) and probes /health/liveness every 50 ms, in two phases:
//   1. quiet: ordinary traffic only (also after phase 2; the quieter of the two is the baseline);
//   2. hostile: the same, while one pathological review (a Pod of --containers containers in the
//      tenant's namespace: a --containers² foreach) is always in flight (re-sent as soon as answered).
// Prints p50/p99/max of the ordinary reviews and of liveness per phase, the ratio hostile/quiet of the
// ordinary p99 (goal <= 2x) and the liveness max (goal < 100 ms), and how the pathological reviews
// were answered. Each configuration is a server process of its own:
//   --workers a,b,...   `--evaluationWorkers` values to compare (default "0,2"; 0 evaluates inline);
//   --before <cli bin>  also runs another build's bin (e.g. a worktree of the previous commit), which
//                       gets no --evaluationWorkers flag;
//   --kinds classic,cel  which pathological policy (default both, one server each): "classic", the
//                       namespaced Policy's nested foreach on /validate/fail; "cel", a ValidatingPolicy
//                       whose expression compares every container with every other, on /vpol/fail
//                       (stopped by its CEL cost limit or deadline);
//   --rate 200 --seconds 10 --containers 3000 --timeout 10
//   --rounds 3          hostile phases per configuration, each between two quiet ones
//                       (quiet, hostile, quiet, hostile, ..., quiet); each round's ratio takes the
//                       quieter of its two neighbours as its baseline, and the verdict takes the
//                       median round (a load spike from elsewhere in one phase decides nothing);
//   --floor             also runs, per kind, the floor of its hostile phase: the same bodies (a Pod
//                       of --containers containers) sent to /validate/fail in a namespace with no
//                       tenant policy, at the pace the pathological reviews were answered in that
//                       kind's configuration with workers. Everything the hostile phase costs except
//                       the pathological evaluation itself: sending, receiving and parsing the bodies
//                       (and the ordinary ClusterPolicy on them). Its ratio is printed, not judged.
// The pathological reviews are sent from a worker thread of this process, so that writing their
// large bodies never delays the ordinary reviews' sends or timestamps on this thread (in a cluster
// the API server sends them; the webhook's latency is what is measured, not the load generator's).
// The load generator's own event-loop delay is printed per phase (p99, max) for the same reason.
// Ends with one "VERDICT" line per configuration and an overall "VERDICT: PASS" or "VERDICT: FAIL",
// with the machine's load average (numbers from a loaded machine are not the goal's).
// BENCH_SERVER_NODE_ARGS (space-separated) are given to each server's node, e.g. "--cpu-prof
// --cpu-prof-dir=/tmp/prof" to profile the serving thread and the evaluation workers.
// Needs the packages built (npm run build).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:https";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";

const cliBin = fileURLToPath(new URL("../packages/cli/dist/bin.js", import.meta.url));

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}
function flag(name: string, fallback: number): number {
  const value = Number(option(name) ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
}

const rate = flag("rate", 200);
const seconds = flag("seconds", 10);
const containers = flag("containers", 3000);
const timeoutSeconds = flag("timeout", 10);
const workerCounts = (option("workers") ?? "0,2").split(",").map(Number);
const rounds = flag("rounds", 3);
const beforeBin = option("before");
const floor = process.argv.includes("--floor");
type Kind = "classic" | "cel";
const kinds = (option("kinds") ?? "classic,cel").split(",").map((k) => {
  if (k !== "classic" && k !== "cel") throw new Error(`--kinds takes classic and/or cel, got "${k}"`);
  return k as Kind;
});
/** Where each kind's pathological review goes. */
const HOSTILE_PATH: Readonly<Record<Kind, string>> = { classic: "/validate/fail", cel: "/vpol/fail" };

const POLICIES = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: disallow-privileged
spec:
  validationFailureAction: Enforce
  background: false
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
---
apiVersion: kyverno.io/v1
kind: Policy
metadata:
  name: nested
  namespace: tenant-a
spec:
  validationFailureAction: Enforce
  background: false
  rules:
    - name: nested-foreach
      match:
        any:
          - resources:
              kinds: [Pod]
      validate:
        foreach:
          - list: request.object.spec.containers
            foreach:
              - list: request.object.spec.containers
                deny:
                  conditions:
                    any:
                      - key: "{{ element.name }}"
                        operator: Equals
                        value: nope
---
apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata:
  name: cel-nested
spec:
  validationActions: [Deny]
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        operations: [CREATE]
        resources: [pods]
  validations:
    - expression: "object.spec.containers.all(c, object.spec.containers.all(d, c.name != 'x' + d.name))"
      message: never
`;

function review(uid: string, namespace: string, n: number): string {
  const list = Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: "nginx:1.25" }));
  const object = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: uid, namespace },
    spec: { containers: list },
  };
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid,
      kind: { group: "", version: "v1", kind: "Pod" },
      resource: { group: "", version: "v1", resource: "pods" },
      namespace,
      name: uid,
      operation: "CREATE",
      userInfo: { username: "bench" },
      object,
      oldObject: null,
      dryRun: false,
    },
  });
}

interface Server {
  child: ChildProcess;
  port: number;
  /** Reviews' connections (keep-alive, as the API server's). */
  agent: Agent;
  /** The probes' own connections, as the kubelet's: never queued behind reviews on the client side. */
  probeAgent: Agent;
  ca: string;
}

function start(bin: string, args: string[], dir: string): Promise<Server> {
  const child = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_SERVER_NODE_ARGS?.split(" ").filter((arg) => arg !== "") ?? []),
      bin,
      "admission",
      "--standalone",
      "--policies",
      dir,
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      "--metrics-port",
      "0",
      "--log-level",
      "error",
      "--webhookTimeout",
      String(timeoutSeconds),
      ...args,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const port = /webhooks: https:\/\/[^\s]*:(\d+)/.exec(out)?.[1];
      const bundle = /caBundle: ([A-Za-z0-9+/=]+)\n/.exec(out)?.[1];
      if (port === undefined || bundle === undefined) return;
      const ca = Buffer.from(bundle, "base64").toString("utf8");
      resolve({
        child,
        port: Number(port),
        ca,
        agent: new Agent({ keepAlive: true, ca, maxSockets: 256 }),
        probeAgent: new Agent({ keepAlive: true, ca, maxSockets: 4 }),
      });
    });
    child.once("exit", (code) => reject(new Error(`admission exited with ${code}:\n${out}`)));
  });
}

function call(
  server: Pick<Server, "port" | "agent" | "probeAgent">,
  method: string,
  path: string,
  body?: string,
): Promise<string> {
  const agent = method === "GET" ? server.probeAgent : server.agent;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: server.port,
        method,
        path,
        agent,
        headers: { "content-type": "application/json" },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** What the hostile phase sends, besides the ordinary reviews. */
interface HostileLoad {
  path: string;
  namespace: string;
  /** Least time between two sends (ms); 0: the next as soon as the last is answered. */
  intervalMs: number;
}

/** The pathological review of a kind: its tenant's namespace, on the kind's webhook, always in flight. */
const pathological = (kind: Kind): HostileLoad => ({
  path: HOSTILE_PATH[kind],
  namespace: "tenant-a",
  intervalMs: 0,
});

/** Namespace of the floor's bodies: no tenant policy there (the ordinary ClusterPolicy applies). */
const FLOOR_NAMESPACE = "bench-floor";

/** What the hostile sender (a worker thread) is told. */
interface HostileJob extends HostileLoad {
  port: number;
  ca: string;
  containers: number;
}

/** The worker thread's loop: one pathological review always in flight until told to stop. */
async function sendHostile(job: HostileJob): Promise<void> {
  const agent = new Agent({ keepAlive: true, ca: job.ca, maxSockets: 1 });
  const target = { port: job.port, agent, probeAgent: agent };
  const heavy = review("pathological", job.namespace, job.containers);
  let stop = false;
  parentPort?.once("message", () => {
    stop = true;
  });
  const answers: string[] = [];
  while (!stop) {
    const sent = performance.now();
    const answer = await call(target, "POST", job.path, heavy).catch((e: Error) => `error ${e.message}`);
    const message =
      /"message":"([^"]{0,160})/.exec(answer)?.[1] ??
      (answer.includes('"allowed":true') ? "allowed" : answer.slice(0, 120));
    answers.push(`${Math.round(performance.now() - sent)} ms: ${message.replace(/\\n/g, " ").trim()}`);
    const wait = sent + job.intervalMs - performance.now();
    if (wait > 0 && !stop) await new Promise((r) => setTimeout(r, wait));
  }
  agent.destroy();
  parentPort?.postMessage(answers);
}

/** Starts the hostile sender in a worker thread; `stop` answers how the pathological reviews were answered. */
function startHostile(server: Server, load: HostileLoad): { stop: () => Promise<string[]> } {
  const job: HostileJob = { ...load, port: server.port, ca: server.ca, containers };
  const worker = new Worker(new URL(import.meta.url), { workerData: job });
  const answered = new Promise<string[]>((resolve, reject) => {
    worker.once("message", (answers: string[]) => resolve(answers));
    worker.once("error", reject);
  });
  return {
    stop: async () => {
      worker.postMessage("stop");
      const answers = await answered;
      await worker.terminate();
      return answers;
    },
  };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

interface Phase {
  ordinary: number[];
  /** How late (ms; negative: early) each ordinary review was sent against its schedule. */
  lateness: number[];
  liveness: number[];
  errors: number;
  pathological: string[];
  /** The load generator's own event-loop delay (ms): p99 and max. */
  clientDelay: { p99: number; max: number };
}

/** One phase: ordinary reviews at `rate` for `seconds`, liveness every 50 ms, and optionally the hostile loop. */
async function phase(server: Server, hostile: HostileLoad | undefined): Promise<Phase> {
  const result: Phase = {
    ordinary: [],
    lateness: [],
    liveness: [],
    errors: 0,
    pathological: [],
    clientDelay: { p99: 0, max: 0 },
  };
  const body = review("ordinary", "default", 1);
  const sender = hostile === undefined ? undefined : startHostile(server, hostile);
  if (sender !== undefined) await new Promise((r) => setTimeout(r, 300));
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const start = performance.now();
  const end = start + seconds * 1000;
  const pending: Promise<void>[] = [];
  const probes = setInterval(() => {
    const sent = performance.now();
    pending.push(
      call(server, "GET", "/health/liveness").then(
        () => void result.liveness.push(performance.now() - sent),
        () => void result.errors++,
      ),
    );
  }, 50);
  const interval = 1000 / rate;
  for (let i = 0; ; i++) {
    const at = start + 100 + i * interval;
    if (at > end) break;
    const now = performance.now();
    if (at > now) await new Promise((r) => setTimeout(r, at - now));
    // Latency from the send itself: a timer fires up to a millisecond early or late, which is the
    // load generator's doing (its lateness is printed), not the webhook's.
    const sent = performance.now();
    result.lateness.push(sent - at);
    pending.push(
      call(server, "POST", "/validate/fail", body).then(
        (answer) => {
          if (!answer.includes('"allowed":true')) result.errors++;
          result.ordinary.push(performance.now() - sent);
        },
        () => void result.errors++,
      ),
    );
  }
  clearInterval(probes);
  await Promise.all(pending);
  delay.disable();
  result.clientDelay = { p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 };
  if (sender !== undefined) result.pathological = await sender.stop();
  return result;
}

const ms = (v: number): string => `${v.toFixed(1)} ms`;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "bench-isolation-"));
  writeFileSync(join(dir, "policies.yaml"), POLICIES);
  /** `floor`: the same bodies as the kind's pathological reviews, paced as those were answered. */
  const configs: Array<{
    name: string;
    bin: string;
    args: string[];
    kind: Kind;
    /** `--evaluationWorkers` (undefined for `--before`, which gets none). */
    workers?: number;
    floor?: true;
  }> = [];
  const floorWorkers = workerCounts.find((n) => n > 0) ?? 2;
  for (const kind of kinds) {
    if (beforeBin !== undefined)
      configs.push({ name: `${kind}, before (previous build)`, bin: beforeBin, args: [], kind });
    for (const n of workerCounts)
      configs.push({
        name: `${kind}, --evaluationWorkers ${n}`,
        bin: cliBin,
        args: ["--evaluationWorkers", String(n)],
        kind,
        workers: n,
      });
    if (floor)
      configs.push({
        name: `${kind}, floor: the same bodies without their evaluation, --evaluationWorkers ${floorWorkers}`,
        bin: cliBin,
        args: ["--evaluationWorkers", String(floorWorkers)],
        kind,
        floor: true,
      });
  }
  /** Pathological reviews answered per second in each kind's last configuration with workers. */
  const answeredPerSecond = new Map<Kind, number>();
  const load = (): string =>
    loadavg()
      .map((l) => l.toFixed(1))
      .join(" ");
  console.log(
    `isolation benchmark: ordinary Pod reviews at ${rate}/s for ${seconds} s, liveness every 50 ms; hostile phase: one ${containers}×${containers} review always in flight (classic: nested foreach; cel: a ValidatingPolicy's nested all()); webhook timeout ${timeoutSeconds} s; ${availableParallelism()} cores, load average ${load()}`,
  );
  const verdicts: string[] = [];
  try {
    for (const config of configs) {
      let hostileLoad = pathological(config.kind);
      if (config.floor) {
        const perSecond = answeredPerSecond.get(config.kind);
        if (perSecond === undefined) {
          console.log(`\n${config.name}: skipped (no configuration with workers measured the pace)`);
          continue;
        }
        hostileLoad = { path: "/validate/fail", namespace: FLOOR_NAMESPACE, intervalMs: 1000 / perSecond };
      }
      const server = await start(config.bin, config.args, dir);
      try {
        // Warm-up: the JIT and the workers' first evaluations.
        for (let i = 0; i < 200; i++)
          await call(server, "POST", "/validate/fail", review(`w${i}`, "default", 1));
        // Quiet, hostile, quiet, hostile, ..., quiet. Each round's baseline is the quieter of the
        // quiet phases beside its hostile one (the strict choice: a load spike from elsewhere during
        // one quiet phase does not flatter the ratio); the verdict takes the median round.
        const phases: Array<{ label: string; phase: Phase }> = [
          { label: "quiet  ", phase: await phase(server, undefined) },
        ];
        const ratios: number[] = [];
        const hostiles: Phase[] = [];
        for (let round = 0; round < rounds; round++) {
          const before = phases[phases.length - 1]?.phase as Phase;
          const hostile = await phase(server, hostileLoad);
          const after = await phase(server, undefined);
          phases.push({ label: "hostile", phase: hostile }, { label: "quiet  ", phase: after });
          hostiles.push(hostile);
          const p99q = Math.min(percentile(before.ordinary, 99), percentile(after.ordinary, 99));
          ratios.push(percentile(hostile.ordinary, 99) / p99q);
        }
        console.log(`\n${config.name}`);
        for (const { label, phase: r } of phases)
          console.log(
            `  ${label} ordinary n=${r.ordinary.length} p50 ${ms(percentile(r.ordinary, 50))} p99 ${ms(percentile(r.ordinary, 99))} max ${ms(Math.max(...r.ordinary))} | liveness p50 ${ms(percentile(r.liveness, 50))} p99 ${ms(percentile(r.liveness, 99))} max ${ms(Math.max(...r.liveness))} | errors ${r.errors} | load generator's loop delay p99 ${ms(r.clientDelay.p99)} max ${ms(r.clientDelay.max)}, sends late p99 ${ms(percentile(r.lateness, 99))}`,
          );
        const ratio = percentile(ratios, 50);
        const livenessMax = Math.max(...hostiles.flatMap((h) => h.liveness));
        const errors = hostiles.reduce((n, h) => n + h.errors, 0);
        console.log(
          `  ordinary p99 hostile/quiet per round ${ratios.map((r) => `${r.toFixed(2)}x`).join(", ")}; median ${ratio.toFixed(2)}x (goal <= 2x: ${ratio <= 2 ? "met" : "MISSED"}); liveness max while hostile ${ms(livenessMax)} (goal < 100 ms: ${livenessMax < 100 ? "met" : "MISSED"})`,
        );
        const answers = hostiles.flatMap((h) => h.pathological);
        const perSecond = answers.length / (rounds * seconds);
        console.log(
          `  ${config.floor ? "floor bodies" : "pathological reviews"} answered: ${answers.length} (${perSecond.toFixed(1)}/s); first: ${answers[0] ?? "none"}`,
        );
        if (!config.floor && config.workers !== undefined && config.workers > 0)
          answeredPerSecond.set(config.kind, perSecond);
        const held = ratio <= 2 && livenessMax < 100 && errors === 0;
        verdicts.push(
          `VERDICT ${config.name} at ${rate}/s: ${held ? "PASS" : "FAIL"} (ordinary p99 hostile/quiet, median of ${rounds} round(s): ${ratio.toFixed(2)}x [${ratios.map((r) => r.toFixed(2)).join(", ")}], goal <= 2x; liveness max ${ms(livenessMax)}, goal < 100 ms; errors ${errors}; load average ${load()})`,
        );
      } finally {
        server.agent.destroy();
        server.probeAgent.destroy();
        server.child.kill("SIGTERM");
        await new Promise((r) => server.child.once("exit", r));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log("");
  for (const line of verdicts) console.log(line);
  // The goal is the isolation of the workers; `--evaluationWorkers 0` and `--before` are for contrast.
  const judged = verdicts.filter((v) => !/--evaluationWorkers 0 |before|floor/.test(v));
  const pass = judged.length > 0 && judged.every((v) => v.includes(": PASS"));
  console.log(
    `VERDICT: ${pass ? "PASS" : "FAIL"} (${judged.length} configuration(s) with evaluation workers; load average ${load()} on ${availableParallelism()} cores${loadavg()[0] > availableParallelism() ? ": the machine is loaded, re-run on a quiet one before judging" : ""})`,
  );
}

if (isMainThread) await main();
else await sendHostile(workerData as HostileJob);
