// Engine benchmark (not a test): compiles the Pod Security and best-practices policies of the
// conformance set once, evaluates them against generated Pods and Deployments, and compares the
// per-resource cost with a floor measured in the same run (JSON parse + clone of the same resource).
// The CEL sets (the Pod Security Standards as ValidatingPolicies and as validate.cel ClusterPolicies)
// run next to the classic policies of the same names, on the same resources.
// Usage: npm run bench [-- --count 10000]
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadCelPolicy, loadPolicy, parseDocuments } from "../packages/api/dist/index.js";
import { createCelEngine, createEngine } from "../packages/engine/dist/index.js";

const root = fileURLToPath(new URL("../../shared/conformance/kyverno-policies/", import.meta.url));
const countArg = process.argv.indexOf("--count");
const COUNT = countArg > 0 ? Number(process.argv[countArg + 1]) : 10_000;
// The policies are the shared conformance set's, referenced by path (never copied into the repo).
if (!existsSync(root)) {
  console.log(`engine benchmark skipped: ${root} does not exist (the shared conformance set is not here)`);
  process.exit(0);
}

function yamlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (name.startsWith(".")) continue;
    if (statSync(path).isDirectory()) out.push(...yamlFiles(path));
    else if (name.endsWith(".yaml") && name !== "artifacthub-pkg.yml") out.push(path);
  }
  return out;
}

function loadSet(dirs: string[], kind: "validate" | "mutate", names?: ReadonlySet<string>) {
  const engine = createEngine();
  const compiled = [];
  let rules = 0;
  for (const dir of dirs) {
    for (const file of yamlFiles(join(root, dir))) {
      const parsed = parseDocuments(readFileSync(file, "utf8"), file);
      for (const doc of parsed.documents) {
        const value = doc.value as { kind?: string; spec?: { rules?: Array<Record<string, unknown>> } };
        if (value?.kind !== "ClusterPolicy") continue;
        if (!value.spec?.rules?.every((r) => r[kind] !== undefined)) continue; // policies of one rule type
        if (kind === "mutate" && value.spec.rules.some((r) => JSON.stringify(r).includes("{{"))) continue;
        const loaded = loadPolicy(doc.value, { file, document: doc.document });
        if (!loaded.ok) continue;
        if (names !== undefined && !names.has(loaded.value.metadata.name)) continue;
        const c = engine.compile(loaded.value);
        if (!c.ok) continue;
        compiled.push(c.policy);
        rules += loaded.value.spec.rules.length;
      }
    }
  }
  return { engine, compiled, rules };
}

/** The ValidatingPolicies of some folders, compiled once with the CEL engine. */
function loadCelSet(dirs: string[]) {
  const engine = createCelEngine();
  const compiled = [];
  for (const dir of dirs) {
    for (const file of yamlFiles(join(root, dir))) {
      for (const doc of parseDocuments(readFileSync(file, "utf8"), file).documents) {
        if ((doc.value as { kind?: string })?.kind !== "ValidatingPolicy") continue;
        const loaded = loadCelPolicy(doc.value, { file, document: doc.document });
        if (!loaded.ok) continue;
        const c = engine.compile(loaded.value);
        if (c.ok) compiled.push(c.policy);
      }
    }
  }
  return { engine, compiled };
}

/** Deterministic PRNG so every run evaluates the same resources. */
function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function generate(count: number) {
  const rand = prng(42);
  const images = [
    "nginx:1.25",
    "nginx:latest",
    "ghcr.io/acme/api:2.1.0",
    "busybox",
    "registry.k8s.io/pause:3.9",
  ];
  const out: Array<Record<string, unknown>> = [];
  for (let i = 0; i < count; i++) {
    const containers = [];
    const n = 1 + Math.floor(rand() * 3);
    for (let c = 0; c < n; c++) {
      const container: Record<string, unknown> = {
        name: `c${c}`,
        image: images[Math.floor(rand() * images.length)],
      };
      if (rand() < 0.7)
        container.resources = { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "256Mi" } };
      if (rand() < 0.6) container.readinessProbe = { httpGet: { path: "/ready", port: 8080 } };
      if (rand() < 0.6) container.livenessProbe = { httpGet: { path: "/live", port: 8080 } };
      if (rand() < 0.5) {
        container.securityContext = {
          runAsNonRoot: rand() < 0.8,
          allowPrivilegeEscalation: rand() < 0.2,
          privileged: rand() < 0.05,
          capabilities: { drop: ["ALL"], ...(rand() < 0.1 ? { add: ["NET_ADMIN"] } : {}) },
          seccompProfile: { type: rand() < 0.9 ? "RuntimeDefault" : "Unconfined" },
        };
      }
      if (rand() < 0.05) container.ports = [{ containerPort: 80, hostPort: 80 }];
      containers.push(container);
    }
    const podSpec: Record<string, unknown> = { containers };
    if (rand() < 0.05) podSpec.hostNetwork = true;
    if (rand() < 0.05) podSpec.volumes = [{ name: "host", hostPath: { path: "/var/run" } }];
    const labels = { "app.kubernetes.io/name": `app${i}`, ...(rand() < 0.5 ? { team: "core" } : {}) };
    if (i % 2 === 0) {
      out.push({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: `pod-${i}`, namespace: `ns-${i % 20}`, labels },
        spec: podSpec,
      });
    } else {
      out.push({
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: `deploy-${i}`, namespace: `ns-${i % 20}`, labels },
        spec: {
          replicas: 2,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: podSpec },
        },
      });
    }
  }
  return out;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function measure(
  resources: Array<Record<string, unknown>>,
  fn: (r: Record<string, unknown>) => void,
  warmUp: Array<Record<string, unknown>> = resources,
) {
  for (let i = 0; i < Math.min(500, warmUp.length); i++) fn(warmUp[i] as Record<string, unknown>); // warm-up
  const times = new Float64Array(resources.length);
  const start = process.hrtime.bigint();
  for (let i = 0; i < resources.length; i++) {
    const t0 = process.hrtime.bigint();
    fn(resources[i] as Record<string, unknown>);
    times[i] = Number(process.hrtime.bigint() - t0) / 1000;
  }
  const totalMs = Number(process.hrtime.bigint() - start) / 1e6;
  const sorted = Array.from(times).sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    perSecond: (resources.length / totalMs) * 1000,
  };
}

const resources = generate(COUNT);
const floor = measure(resources, (r) => {
  structuredClone(JSON.parse(JSON.stringify(r)));
});

const sets = [
  {
    name: "pod-security",
    dirs: ["pod-security/baseline", "pod-security/restricted"],
    kind: "validate" as const,
  },
  { name: "best-practices", dirs: ["best-practices"], kind: "validate" as const },
  // Label/annotation/securityContext defaults without variables (add-labels, add-safe-to-evict, …).
  { name: "mutate", dirs: ["other", "best-practices", "psp-migration"], kind: "mutate" as const },
];
console.log(`kyverno-ts engine benchmark: ${COUNT} resources (half Pods, half Deployments), one core`);
console.log(
  `floor (JSON parse + clone per resource): p50 ${floor.p50.toFixed(1)} µs, p99 ${floor.p99.toFixed(1)} µs`,
);
console.log("");
console.log("set               policies rules  resources/s   p50 µs   p99 µs   p50/floor");
for (const set of sets) {
  const { engine, compiled, rules } = loadSet(set.dirs, set.kind);
  const evaluate = set.kind === "mutate" ? engine.mutate : engine.validate;
  let results = 0;
  const m = measure(resources, (r) => {
    for (const p of compiled) results += evaluate(p, { resource: r }).rules.length;
  });
  const pods = resources.filter((r) => r.kind === "Pod");
  const podOnly = measure(pods, (r) => {
    for (const p of compiled) evaluate(p, { resource: r });
  });
  console.log(
    `${set.name.padEnd(17)} ${String(compiled.length).padStart(8)} ${String(rules).padStart(5)} ${m.perSecond.toFixed(0).padStart(12)} ${m.p50
      .toFixed(1)
      .padStart(
        8,
      )} ${m.p99.toFixed(1).padStart(8)} ${(m.p50 / floor.p50).toFixed(1).padStart(10)}x   (Pods only: p50 ${podOnly.p50.toFixed(1)} µs; ${results} rule results)`,
  );
}
// CEL: the same Pod Security checks as ValidatingPolicies and as validate.cel rules, against the
// classic policies of the same names.
for (const dir of ["pod-security-vpol", "pod-security-cel"])
  if (!existsSync(join(root, dir))) {
    console.log(`\nCEL sets skipped: ${join(root, dir)} does not exist`);
    process.exit(0);
  }
const vpol = loadCelSet(["pod-security-vpol"]);
const vpolNames = new Set(vpol.compiled.map((p) => p.name));
const celRules = loadSet(["pod-security-cel"], "validate", vpolNames);
const classicSame = loadSet(["pod-security/baseline", "pod-security/restricted"], "validate", vpolNames);
const run = (label: string, policies: number, fn: (r: Record<string, unknown>) => number) => {
  let results = 0;
  const m = measure(resources, (r) => {
    results += fn(r);
  });
  console.log(
    `${label.padEnd(17)} ${String(policies).padStart(8)} ${"".padStart(5)} ${m.perSecond.toFixed(0).padStart(12)} ${m.p50
      .toFixed(1)
      .padStart(
        8,
      )} ${m.p99.toFixed(1).padStart(8)} ${(m.p50 / floor.p50).toFixed(1).padStart(10)}x   (${results} results)`,
  );
  return m;
};
console.log("");
console.log(`Pod Security as CEL (${[...vpolNames].sort().join(", ")}):`);
const classic = run("classic same", classicSame.compiled.length, (r) =>
  classicSame.compiled.reduce((n, p) => n + classicSame.engine.validate(p, { resource: r }).rules.length, 0),
);
const vp = run("ValidatingPolicy", vpol.compiled.length, (r) =>
  vpol.compiled.reduce((n, p) => n + vpol.engine.validate(p, { resource: r }).rules.length, 0),
);
const vc = run("validate.cel", celRules.compiled.length, (r) =>
  celRules.compiled.reduce((n, p) => n + celRules.engine.validate(p, { resource: r }).rules.length, 0),
);
// This shared machine's speed drifts within seconds: the ratio is also taken over alternating
// rounds (each set on the same slice of resources in turn), as the median of per-round ratios.
const ROUNDS = 20;
const slice = Math.max(1, Math.floor(resources.length / ROUNDS));
const sets3 = [
  (r: Record<string, unknown>) => {
    for (const p of classicSame.compiled) classicSame.engine.validate(p, { resource: r });
  },
  (r: Record<string, unknown>) => {
    for (const p of vpol.compiled) vpol.engine.validate(p, { resource: r });
  },
  (r: Record<string, unknown>) => {
    for (const p of celRules.compiled) celRules.engine.validate(p, { resource: r });
  },
];
const ratios: number[][] = [[], []];
for (let round = 0; round < ROUNDS; round++) {
  const part = resources.slice(round * slice, (round + 1) * slice);
  // Fresh copies for each set, so none meets objects another run has already seen (and converted).
  const p50s = sets3.map((fn) => measure(structuredClone(part), fn, structuredClone(part)).p50);
  ratios[0]?.push((p50s[1] ?? 0) / (p50s[0] ?? 1));
  ratios[1]?.push((p50s[2] ?? 0) / (p50s[0] ?? 1));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
console.log(
  `CEL p50 / classic p50: ValidatingPolicy ${(vp.p50 / classic.p50).toFixed(2)}x, validate.cel ${(vc.p50 / classic.p50).toFixed(2)}x; ` +
    `median over ${ROUNDS} alternating rounds: ValidatingPolicy ${median(ratios[0] ?? []).toFixed(2)}x, validate.cel ${median(ratios[1] ?? []).toFixed(2)}x`,
);
console.log("");
console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
