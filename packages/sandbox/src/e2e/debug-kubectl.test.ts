/**
 * Ephemeral containers through `kubectl debug`: added with the `pods/ephemeralcontainers` subresource
 * (an UPDATE of that subresource for the webhooks, carrying the Pod), never changed or removed.
 */

import { kubectlAvailable, kubectlFor, NO_KUBECTL } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdmissionAttributes } from "../admission/types.js";
import { type Sandbox, startSandbox } from "../index.js";

const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn(`skipping the kubectl debug e2e: ${NO_KUBECTL}`);

describe.skipIf(!hasKubectl)("ephemeral containers (kubectl debug)", { timeout: 30_000 }, () => {
  let sandbox: Sandbox;
  let kubectl: ReturnType<typeof kubectlFor>;
  const admitted: AdmissionAttributes[] = [];
  beforeAll(async () => {
    sandbox = await startSandbox({
      admission: {
        async admit(attrs) {
          admitted.push(attrs);
          return { allowed: true, object: attrs.object, warnings: [], auditAnnotations: {} };
        },
      },
    });
    kubectl = kubectlFor(sandbox.kubeconfigPath);
    expect((await kubectl(["run", "web", "--image=nginx"])).code).toBe(0);
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  it("adds a debug container to a running Pod, as the webhooks see it", async () => {
    const debug = await kubectl(["debug", "web", "--image=busybox", "-c", "dbg", "--profile=general"]);
    expect(debug.stderr).toBe("");
    expect(debug.code).toBe(0);
    const defaulted = await kubectl(["debug", "web", "--image=busybox", "--profile=general"]);
    expect(defaulted.stdout).toMatch(/^Defaulting debug container name to debugger-[a-z0-9]{5}\.\n$/);
    const names = await kubectl(["get", "pod", "web", "-o", "jsonpath={.spec.ephemeralContainers[*].name}"]);
    expect(names.stdout).toMatch(/^dbg debugger-[a-z0-9]{5}$/);
    const image = await kubectl(["get", "pod", "web", "-o", "jsonpath={.spec.ephemeralContainers[0].image}"]);
    expect(image.stdout).toBe("busybox");

    const review = admitted.find((a) => a.subResource === "ephemeralcontainers");
    expect(review).toMatchObject({
      operation: "UPDATE",
      kind: { group: "", version: "v1", kind: "Pod" },
      resource: { resource: "pods" },
      name: "web",
    });
    const seen = review?.object as { spec: { ephemeralContainers: Array<{ name: string }> } };
    expect(seen.spec.ephemeralContainers.map((c) => c.name)).toEqual(["dbg"]);
  });

  it("refuses to change, remove or duplicate an ephemeral container", async () => {
    const pod = JSON.parse((await kubectl(["get", "pod", "web", "-o", "json"])).stdout);
    const put = async (ephemeralContainers: unknown[]) => {
      const body = { ...pod, spec: { ...pod.spec, ephemeralContainers } };
      return kubectl(
        ["replace", "--raw", "/api/v1/namespaces/default/pods/web/ephemeralcontainers", "-f", "-"],
        JSON.stringify(body),
      );
    };
    const [first, second] = pod.spec.ephemeralContainers;
    const changed = await put([{ ...first, image: "alpine" }, second]);
    expect(changed.stderr).toContain(
      'The Pod "web" is invalid: spec.ephemeralContainers[0]: Forbidden: existing ephemeral containers "dbg" may not be changed',
    );
    const removed = await put([second]);
    expect(removed.stderr).toContain(
      'spec.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be removed',
    );
    const duplicate = await put([first, second, { name: "web", image: "busybox" }]);
    expect(duplicate.stderr).toContain('spec.ephemeralContainers[2].name: Duplicate value: "web"');
  });
});
