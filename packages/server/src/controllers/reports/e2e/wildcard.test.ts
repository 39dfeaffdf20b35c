/** End to end against the sandbox: wildcard-kind policies are not scanned in background, as upstream. */
import type { KubeClient } from "@kyverno-ts/kube";
import { describe, expect, it } from "vitest";
import {
  allReports,
  controllerFor,
  eventually,
  idle,
  namespace,
  pod,
  put,
  recordingLogger,
  requireLabelPolicy,
  useCluster,
} from "../testing/harness.js";

function wildcardPolicy(name: string, kinds: string[]) {
  const base = requireLabelPolicy(name, "team");
  const rule = { ...base.spec.rules[0], match: { any: [{ resources: { kinds } }] } };
  return { ...base, spec: { ...base.spec, rules: [rule] } };
}

describe("wildcard kinds (sandbox)", { timeout: 30_000 }, () => {
  let client: KubeClient;
  useCluster((started) => {
    client = started.client;
  });

  it("rejects or skips background policies matching any kind, and says why", async () => {
    await put(client, namespace("wild"));
    await put(client, pod("web", "wild"));
    await put(client, requireLabelPolicy("require-app", "app"));
    await put(client, wildcardPolicy("every-kind", ["*"]));
    await put(client, wildcardPolicy("every-apps-kind", ["apps/v1/*"]));
    const logger = recordingLogger();
    const controller = controllerFor(client, { logger });
    await controller.start();
    try {
      await eventually(async () => idle(controller) && (await allReports(client)).length > 0);
      const policies = (await allReports(client)).flatMap((r) => (r.results ?? []).map((x) => x.policy));
      expect([...new Set(policies)]).toEqual(["require-app"]);
      const said = logger.lines.map((l) => `${l.message} ${JSON.stringify(l.fields)}`);
      expect(said.some((l) => l.startsWith("policy cannot be loaded") && l.includes("every-kind"))).toBe(
        true,
      );
      expect(
        said.some(
          (l) => /wildcard policy not allowed in background mode/.test(l) && l.includes("every-kind"),
        ),
      ).toBe(true);
      expect(
        said.some(
          (l) =>
            l.startsWith("wildcard policy not allowed in background mode") && l.includes("every-apps-kind"),
        ),
      ).toBe(true);
    } finally {
      await controller.stop();
    }
  });
});
