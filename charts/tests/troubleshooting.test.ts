/**
 * docs/troubleshooting.md against an installed system: the chart installed into the sandbox (process
 * mode kubelet), a ClusterPolicy, a non-compliant Pod that predates it; then every `$ kubectl …` /
 * `$ helm …` command of the guide is run as written and its output checked against what the guide
 * says it shows, and every PromQL query's metrics and `by (…)` labels are checked against a scrape of
 * the controllers. A command in the guide without a check here (or a check without its command) fails.
 */
import { readFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { METRIC_FAMILIES } from "../../packages/server/src/metrics/catalog.ts";
import {
  clusterUnavailable,
  errorsOf,
  eventually,
  REPO_ROOT,
  type RunResult,
  startTestCluster,
  type TestCluster,
} from "./cluster/cluster.ts";

const unavailable = await clusterUnavailable();
if (unavailable !== undefined) console.warn(`troubleshooting e2e skipped: ${unavailable}`);

const GUIDE = readFileSync(`${REPO_ROOT}docs/troubleshooting.md`, "utf8");

/** The fenced blocks of a language in the guide. */
function blocks(lang: string): string[] {
  const fence = "```";
  return [...GUIDE.matchAll(new RegExp(`${fence}${lang}\\n([\\s\\S]*?)${fence}`, "g"))].map(
    (m) => m[1] as string,
  );
}

/** The guide's commands: the `$ ` lines of its sh blocks. */
function guideCommands(): string[] {
  return blocks("sh").flatMap((b) =>
    b
      .split("\n")
      .filter((l) => l.startsWith("$ "))
      .map((l) => l.slice(2).trim()),
  );
}

/** The guide's PromQL queries: one per line of its promql blocks. */
function guideQueries(): string[] {
  return blocks("promql").flatMap((b) => b.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#")));
}

/** A command line as sh splits it: spaces separate words, quotes (removed) group. */
function words(command: string): string[] {
  const out: string[] = [];
  let word = "";
  let inWord = false;
  let quote: string | undefined;
  for (const ch of command) {
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) out.push(word);
      word = "";
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (inWord) out.push(word);
  return out;
}

const POLICY = {
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name: "require-team-label" },
  spec: {
    validationFailureAction: "Enforce",
    background: true,
    rules: [
      {
        name: "check-team",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        validate: { message: "label 'team' is required", pattern: { metadata: { labels: { team: "?*" } } } },
      },
    ],
  },
};

const FAST_PROBES = ["admissionController", "reportsController"].flatMap((c) =>
  ["startupProbe", "readinessProbe"].flatMap((probe) => [
    `${c}.${probe}.initialDelaySeconds=1`,
    `${c}.${probe}.periodSeconds=1`,
    // As long to start as the chart allows (a loaded machine starts node slowly).
    `${c}.${probe}.failureThreshold=${probe === "startupProbe" ? 180 : 6}`,
  ]),
);

type Check = (r: RunResult, cluster: TestCluster) => void | Promise<void>;
const succeeds = (r: RunResult) => {
  expect(errorsOf(r.stderr), r.stdout).toBe("");
  expect(r.code).toBe(0);
};

/** Runs one of the guide's commands; TROUBLESHOOTING_PRINT=1 prints what it showed (to refresh the guide's samples). */
async function runCommand(cluster: TestCluster, command: string): Promise<RunResult> {
  const [tool, ...args] = words(command);
  const r = tool === "helm" ? await cluster.helm(args) : await cluster.kubectl(args);
  if (process.env.TROUBLESHOOTING_PRINT) console.log(`$ ${command}\n${r.stdout}${r.stderr}(exit ${r.code})`);
  return r;
}

/** What each command of the guide shows, by section (run in this order). */
const CHECKS: ReadonlyArray<readonly [string, Check]> = [
  // Webhook timeouts
  [
    "kubectl -n kyverno get pods",
    (r) => {
      succeeds(r);
      expect(r.stdout).toMatch(/kyverno-admission-controller-\S+\s+1\/1\s+Running/);
      expect(r.stdout).toMatch(/kyverno-reports-controller-\S+\s+1\/1\s+Running/);
    },
  ],
  [
    "kubectl -n kyverno get endpoints kyverno-svc",
    (r) => {
      succeeds(r);
      expect(r.stdout).toMatch(/kyverno-svc\s+10\.244\.\d+\.\d+:9443\s/);
    },
  ],
  [
    "kubectl get validatingwebhookconfigurations",
    (r) => {
      succeeds(r);
      for (const name of ["kyverno-policy", "kyverno-exception", "kyverno-resource"])
        expect(r.stdout).toMatch(new RegExp(`${name}-validating-webhook-cfg\\s+\\d+\\s`));
    },
  ],
  [
    `kubectl get validatingwebhookconfiguration kyverno-resource-validating-webhook-cfg -o jsonpath='{range .webhooks[*]}{.name} {.failurePolicy} {.timeoutSeconds}{"\\n"}{end}'`,
    (r) => {
      succeeds(r);
      expect(r.stdout.trim().split("\n")).toContain("validate.kyverno.svc-fail Fail 10");
    },
  ],
  // API server connectivity
  [
    "kubectl -n kyverno get leases",
    (r) => {
      succeeds(r);
      expect(r.stdout).toMatch(/^kyverno\s+kyverno-admission-controller-\S+\s/m);
      expect(r.stdout).toMatch(/^kyverno-reports-controller\s+kyverno-reports-controller-\S+\s/m);
    },
  ],
  [
    "kubectl -n kyverno logs -l app.kubernetes.io/component=admission-controller --tail=-1",
    (r) => {
      succeeds(r);
      expect(r.stdout).toContain('"msg":"serving admission requests"');
      expect(r.stdout).toContain(
        '"msg":"leading: managing certificates, webhook configurations and policy statuses"',
      );
    },
  ],
  // A policy that does not apply
  [
    "kubectl get cpol,pol -A",
    (r) => {
      succeeds(r);
      expect(r.stdout).toMatch(/require-team-label\s+true\s+true\s+True\s/);
    },
  ],
  [
    "kubectl describe clusterpolicy require-team-label",
    (r) => {
      succeeds(r);
      expect(r.stdout).toMatch(/Reason:\s+Succeeded\s+Status:\s+True\s+Type:\s+Ready/);
    },
  ],
  [
    "kubectl get validatingwebhookconfiguration kyverno-resource-validating-webhook-cfg -o jsonpath='{.webhooks[*].rules[*].resources}'",
    (r) => {
      succeeds(r);
      expect(r.stdout).toContain('"pods"');
    },
  ],
  [
    "kubectl -n kyverno get configmap kyverno -o jsonpath='{.data.resourceFilters}'",
    (r) => {
      succeeds(r);
      expect(r.stdout).toContain("[Event,*,*]");
      expect(r.stdout).toContain("[*/*,kube-system,*]");
    },
  ],
  [
    "kubectl -n team-a run probe --image=nginx --dry-run=server",
    (r) => {
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('admission webhook "validate.kyverno.svc-fail" denied the request');
      expect(r.stderr).toContain("require-team-label");
      expect(r.stderr).toContain("validation error: label ''team'' is required");
    },
  ],
  // Slow admissions
  [
    "kubectl -n kyverno get deployment kyverno-admission-controller -o jsonpath='{.spec.template.spec.containers[0].args}'",
    (r) => {
      succeeds(r);
      expect(r.stdout).toContain('"--webhookTimeout=10"');
    },
  ],
  // Background scan status
  [
    "kubectl get policyreports -n team-a",
    (r) => {
      succeeds(r);
      expect(r.stdout).toMatch(/Pod\s+legacy\s+0\s+1\s+0\s+0\s+0\s/);
    },
  ],
  [
    "kubectl -n kyverno logs -l app.kubernetes.io/component=reports-controller --tail=-1",
    (r) => {
      succeeds(r);
      expect(r.stdout).toContain('"msg":"leading: reconciling reports"');
      expect(r.stdout).toContain('"msg":"full scan done"');
    },
  ],
  // A blocked upgrade: `helm upgrade` of a bad flag value (set up before these checks run).
  [
    "helm history kyverno -n kyverno",
    (r) => {
      succeeds(r);
      expect(r.stdout).toMatch(/^2\s.*\bdeployed\b.*Upgrade complete/m);
    },
  ],
  [
    "kubectl -n kyverno get pods -l app.kubernetes.io/component=reports-controller",
    (r) => {
      succeeds(r);
      // The new Pod never gets ready; it has restarted (Error or CrashLoopBackOff between restarts).
      expect(r.stdout).toMatch(
        /kyverno-reports-controller-\S+\s+0\/1\s+(Error|CrashLoopBackOff|Running)\s+[1-9]/,
      );
    },
  ],
  [
    "kubectl -n kyverno logs -l app.kubernetes.io/component=reports-controller --tail=3",
    (r) => {
      succeeds(r);
      expect(r.stdout).toContain('error: invalid value "fast" for flag -clientRateLimitQPS');
    },
  ],
  [
    "kubectl -n kyverno rollout status deployment/kyverno-reports-controller --timeout=10s",
    (r) => {
      expect(r.code).not.toBe(0);
      expect(r.stdout).toContain("Waiting for deployment");
      expect(r.stderr).toContain("timed out waiting for the condition");
    },
  ],
  [
    "helm rollback kyverno -n kyverno",
    (r) => {
      succeeds(r);
      expect(r.stdout).toContain("Rollback was a success");
    },
  ],
  [
    "kubectl delete validatingwebhookconfiguration kyverno-resource-validating-webhook-cfg",
    (r) => {
      succeeds(r);
      expect(r.stdout).toContain("deleted");
    },
  ],
  [
    "kubectl annotate clusterpolicy require-team-label kyverno.io/touched=now --overwrite",
    async (r, cluster) => {
      succeeds(r);
      await eventually(
        "the resource webhook configuration written again",
        async () => {
          const got = await cluster.kubectl([
            "get",
            "validatingwebhookconfiguration",
            "kyverno-resource-validating-webhook-cfg",
          ]);
          return got.code === 0 ? true : undefined;
        },
        30000,
      );
    },
  ],
];

describe("docs/troubleshooting.md", () => {
  it("has a check here for each of its commands, and a command for each check", () => {
    expect(guideCommands()).toEqual(CHECKS.map(([command]) => command));
    expect(guideQueries().length).toBeGreaterThan(0);
  });
});

// In CI a missing tool fails the suite (with the reason) instead of skipping it.
describe.skipIf(unavailable !== undefined && process.env.CI !== "true")(
  "docs/troubleshooting.md's commands against an installed system",
  { timeout: 90000 },
  () => {
    let cluster: TestCluster;
    beforeAll(async () => {
      if (unavailable !== undefined) throw new Error(unavailable);
      cluster = await startTestCluster();
      try {
        succeeds(await cluster.kubectl(["create", "namespace", "team-a"]));
        succeeds(await cluster.kubectl(["-n", "team-a", "run", "legacy", "--image=nginx"]));
        const install = await cluster.helm([
          "install",
          "kyverno",
          `${REPO_ROOT}charts/kyverno-ts`,
          "-n",
          "kyverno",
          "--create-namespace",
          // Probed every second instead of every 6-10 s: the same install, ready sooner.
          ...FAST_PROBES.flatMap((v) => ["--set", v]),
          "--wait",
          "--timeout",
          "3m",
        ]);
        expect(errorsOf(install.stderr)).toBe("");
        expect(install.code).toBe(0);
        const policy = await cluster.kubectl(["apply", "-f", "-"], JSON.stringify(POLICY));
        expect(policy.code, policy.stderr).toBe(0);
        await eventually(
          "the policy Ready and a report for the Pod",
          async () => {
            const r = await cluster.kubectl(["get", "policyreports", "-n", "team-a", "-o", "name"]);
            const ready = await cluster.kubectl([
              "get",
              "clusterpolicy",
              "require-team-label",
              "-o",
              "jsonpath={.status.ready}",
            ]);
            return r.stdout.trim() !== "" && ready.stdout === "true" ? true : undefined;
          },
          40000,
        );
      } catch (error) {
        console.error(await cluster.diagnostics());
        throw error;
      }
    }, 240000);
    afterAll(async () => {
      await cluster?.stop();
    }, 60000);
    afterEach(async (context) => {
      if (context.task.result?.state === "fail") console.error(await cluster.diagnostics());
    });

    const upgradeAt = CHECKS.findIndex(([command]) => command.startsWith("helm history"));

    it("shows what the guide says for each symptom's commands", async () => {
      for (const [command, check] of CHECKS.slice(0, upgradeAt))
        await check(await runCommand(cluster, command), cluster);
    });

    it("serves the metrics and labels of the guide's PromQL queries", async () => {
      const scrape = async (service: string) => {
        const address = cluster.kubelet.serviceAddress("kyverno", service, 8000);
        if (address === undefined) throw new Error(`no endpoint for ${service}`);
        return (await fetch(`http://${address.host}:${address.port}/metrics`)).text();
      };
      const text = `${await scrape("kyverno-svc-metrics")}\n${await scrape("kyverno-reports-controller-metrics")}`;
      for (const query of guideQueries()) {
        const metrics = [...new Set(query.match(/\bkyverno_[a-z_]+/g) ?? [])].map((m) =>
          m.replace(/_(bucket|sum|count)$/, ""),
        );
        expect(metrics.length, query).toBeGreaterThan(0);
        const labels = [...query.matchAll(/\bby \(([^)]*)\)/g)]
          .flatMap((m) => (m[1] as string).split(",").map((l) => l.trim()))
          .filter((l) => l !== "le");
        for (const metric of metrics) {
          expect(text, `${query}: ${metric} is not served`).toMatch(new RegExp(`^# TYPE ${metric} `, "m"));
          const samples = text.split("\n").filter((l) => /^[a-z_]+[{ ]/.test(l) && l.startsWith(metric));
          // Counters with no event yet (errors) have no sample: their labels are the catalog's.
          const known =
            samples.length > 0
              ? (label: string) => samples.some((s) => s.includes(`${label}="`))
              : (label: string) =>
                  Object.values(METRIC_FAMILIES).some(
                    (f) => f.name === metric && (f.labels as readonly string[]).includes(label),
                  );
          const own = labels.filter((label) => known(label));
          if (metrics.length === 1) expect(own, `${query}: labels of ${metric}`).toEqual(labels);
        }
      }
    });

    it("shows a blocked upgrade and its way out as the guide says", { timeout: 240000 }, async () => {
      const upgrade = await cluster.helm([
        "upgrade",
        "kyverno",
        `${REPO_ROOT}charts/kyverno-ts`,
        "-n",
        "kyverno",
        "--reuse-values",
        "--set",
        "reportsController.extraArgs.clientRateLimitQPS=fast",
      ]);
      expect(upgrade.code, upgrade.stderr).toBe(0);
      // The new reports controller waits to be restarted (the guide's state a minute after the upgrade).
      await eventually(
        "the new reports controller in CrashLoopBackOff",
        async () => {
          const pods = await cluster.kubectl([
            "-n",
            "kyverno",
            "get",
            "pods",
            "-l",
            "app.kubernetes.io/component=reports-controller",
            "-o",
            "jsonpath={.items[*].status.containerStatuses[*].state.waiting.reason}",
          ]);
          return pods.stdout.includes("CrashLoopBackOff") ? true : undefined;
        },
        150000,
        500,
      );
      for (const [command, check] of CHECKS.slice(upgradeAt))
        await check(await runCommand(cluster, command), cluster);
    });
  },
);
