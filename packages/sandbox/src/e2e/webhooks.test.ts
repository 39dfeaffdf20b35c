import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { kubectlAvailable, kubectlFor, NO_KUBECTL } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCertificateAuthority, type Sandbox, startSandbox } from "../index.js";

const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn(`skipping webhook e2e tests: ${NO_KUBECTL}`);

interface Review {
  request: { uid: string; object?: { metadata?: { name?: string } } };
}

/** One HTTPS webhook server; each path is a behaviour the tests register a webhook for. */
async function startWebhooks(certPem: string, keyPem: string): Promise<{ server: Server; port: number }> {
  const server = createServer({ cert: certPem, key: keyPem }, (req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      const review = JSON.parse(body) as Review;
      const answer = (response: Record<string, unknown>) => {
        res.setHeader("content-type", "application/json");
        res.end(
          JSON.stringify({
            apiVersion: "admission.k8s.io/v1",
            kind: "AdmissionReview",
            response: { uid: review.request.uid, ...response },
          }),
        );
      };
      const path = (req.url ?? "").split("?")[0];
      if (path === "/deny") {
        const name = review.request.object?.metadata?.name ?? "";
        if (name.startsWith("bad-"))
          answer({ allowed: false, status: { code: 403, message: `name ${name} is not allowed` } });
        else answer({ allowed: true, warnings: [`checked ${name}`] });
      } else if (path === "/mutate") {
        const patch = [{ op: "add", path: "/data/injected", value: "by-webhook" }];
        answer({
          allowed: true,
          patchType: "JSONPatch",
          patch: Buffer.from(JSON.stringify(patch)).toString("base64"),
        });
      } else if (path === "/hang") {
        // never answers: the API server must time out
      } else answer({ allowed: true });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

describe.skipIf(!hasKubectl)("kubectl through the sandbox's webhook admission", { timeout: 30_000 }, () => {
  let sandbox: Sandbox;
  let webhooks: { server: Server; port: number };
  let kubectl: ReturnType<typeof kubectlFor>;
  let caBundle: string;
  let dir: string;

  beforeAll(async () => {
    const ca = await createCertificateAuthority();
    const serving = await ca.issue(["127.0.0.1", "localhost"]);
    webhooks = await startWebhooks(serving.certPem, serving.keyPem);
    caBundle = Buffer.from(ca.caCertPem).toString("base64");
    sandbox = await startSandbox({});
    kubectl = kubectlFor(sandbox.kubeconfigPath);
    dir = join(sandbox.kubeconfigPath, "..");
  });
  afterAll(async () => {
    await sandbox?.stop();
    webhooks?.server.closeAllConnections();
    await new Promise((resolve) => webhooks?.server.close(resolve));
  });

  const apply = async (name: string, yaml: string) => {
    const path = join(dir, name);
    writeFileSync(path, yaml);
    return kubectl(["apply", "-f", path]);
  };
  const webhookConfig = (
    kind: string,
    name: string,
    path: string,
    extra: string,
  ) => `apiVersion: admissionregistration.k8s.io/v1
kind: ${kind}
metadata: {name: ${name}}
webhooks:
- name: ${name}.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig:
    url: https://127.0.0.1:${webhooks.port}${path}
    caBundle: ${caBundle}
  rules:
  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [configmaps]}
  namespaceSelector:
    matchLabels: {webhook: ${name}}
${extra}`;
  const namespace = async (ns: string, label: string) => {
    await apply(
      `${ns}.yaml`,
      `apiVersion: v1\nkind: Namespace\nmetadata: {name: ${ns}, labels: {webhook: ${label}}}\n`,
    );
  };
  const configMap = (ns: string, name: string) =>
    apply(
      `${ns}-${name}.yaml`,
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, namespace: ${ns}}\ndata: {a: b}\n`,
    );

  it("a validating webhook denies with Kubernetes' message and passes warnings to kubectl", async () => {
    await apply("deny.yaml", webhookConfig("ValidatingWebhookConfiguration", "deny", "/deny", ""));
    await namespace("guarded", "deny");
    const denied = await configMap("guarded", "bad-one").catch((e: { stderr: string }) => e);
    expect("stderr" in denied ? denied.stderr : "").toContain(
      'admission webhook "deny.example.com" denied the request: name bad-one is not allowed',
    );
    const ok = await configMap("guarded", "good-one");
    expect(ok.stdout).toContain("configmap/good-one created");
    expect(ok.stderr).toContain("Warning: checked good-one");
  });

  it("a mutating webhook's JSON patch is stored", async () => {
    await apply("mutate.yaml", webhookConfig("MutatingWebhookConfiguration", "mutate", "/mutate", ""));
    await namespace("mutated", "mutate");
    await configMap("mutated", "cfg");
    const stored = JSON.parse((await kubectl(["get", "cm", "cfg", "-n", "mutated", "-o", "json"])).stdout);
    expect(stored.data).toEqual({ a: "b", injected: "by-webhook" });
  });

  it("a webhook that times out refuses under failurePolicy Fail and admits under Ignore", async () => {
    await apply(
      "hang-fail.yaml",
      webhookConfig(
        "ValidatingWebhookConfiguration",
        "hangfail",
        "/hang",
        "  timeoutSeconds: 1\n  failurePolicy: Fail\n",
      ),
    );
    await apply(
      "hang-ignore.yaml",
      webhookConfig(
        "ValidatingWebhookConfiguration",
        "hangignore",
        "/hang",
        "  timeoutSeconds: 1\n  failurePolicy: Ignore\n",
      ),
    );
    await namespace("strict", "hangfail");
    await namespace("lenient", "hangignore");
    const refused = await configMap("strict", "x").catch((e: { stderr: string }) => e);
    expect("stderr" in refused ? refused.stderr : "").toMatch(
      /failed calling webhook "hangfail.example.com".*context deadline exceeded/,
    );
    expect((await configMap("lenient", "x")).stdout).toContain("configmap/x created");
  });
});
