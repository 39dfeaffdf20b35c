/**
 * Entry point of a reports controller in its own process (started by `controller-process.ts` from the
 * current sources), so that a test can SIGKILL it: a real crash, with requests cut mid-flight and the
 * lease left held. Arguments: kubeconfig path, identity, client QPS. Sends `ready` once started.
 */
import { createEngine } from "@kyverno-ts/engine";
import { createKubeClient } from "@kyverno-ts/kube";
import { createJsonLogger } from "../../../logger.js";
import { createReportsController } from "../reports-controller.js";

const [kubeconfigPath = "", identity = "child", qps = "0"] = process.argv.slice(2);
const client = createKubeClient({ kubeconfigPath, qps: Number(qps), burst: 5 });
const controller = createReportsController({
  client,
  engine: createEngine(),
  informerDelay: () => 100,
  logger: createJsonLogger({ stream: process.stderr, level: "info" }),
  leaderElection: {
    namespace: "default",
    identity,
    leaseDurationMs: 1500,
    renewDeadlineMs: 1000,
    retryPeriodMs: 200,
  },
});
await controller.start();
process.send?.({ type: "ready" });
process.on("disconnect", () => {
  void controller.stop().then(() => process.exit(0));
});
