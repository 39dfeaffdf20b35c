import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

const pkg = (name: string) => fileURLToPath(new URL(`./packages/${name}/src/index.ts`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: {
      "@kyverno-ts/api": pkg("api"),
      "@kyverno-ts/k8s": pkg("k8s"),
      "@kyverno-ts/engine": pkg("engine"),
      "@kyverno-ts/sandbox": pkg("sandbox"),
      "@kyverno-ts/kube": pkg("kube"),
      "@kyverno-ts/server/admission": fileURLToPath(
        new URL("./packages/server/src/admission-command.ts", import.meta.url),
      ),
      "@kyverno-ts/server": pkg("server"),
      "@kyverno-ts/reporter": pkg("reporter"),
      "@kyverno-ts/testing": pkg("testing"),
    },
  },
  test: {
    include: ["packages/*/src/**/*.test.ts", "scripts/**/*.test.ts", "charts/**/*.test.ts"],
    // A chart's charts/ folder links its dependencies (charts/kyverno-ts/charts/policy-reporter): their
    // tests run once, from the chart itself.
    exclude: [...configDefaults.exclude, "charts/*/charts/**"],
    pool: "threads",
    // Hang guards, not speed limits: end-to-end tests drive kubectl, browsers and servers, which on a
    // busy 2-core machine take several times their quiet duration (vitest's default is 5 s).
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Admission servers started by the tests keep their evaluation workers at a lower nice value
    // instead of SCHED_IDLE (--evaluationWorkerScheduling): with no cgroup of their own, idle workers
    // would wait for every busy test thread of the run, past their requests' deadlines.
    env: { KYVERNO_TS_EVALUATION_WORKER_SCHEDULING: "nice" },
  },
});
