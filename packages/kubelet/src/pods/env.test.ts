import type { KubeClient } from "@kyverno-ts/kube";
import { describe, expect, it } from "vitest";
import { containerEnv, expandReferences } from "./env.js";
import type { Pod } from "./pod-types.js";

const client = {
  async get(ref: { kind: string; name: string }) {
    if (ref.kind === "Secret" && ref.name === "creds")
      return {
        ok: true,
        status: 200,
        value: { data: { password: Buffer.from("s3cret").toString("base64") } },
      };
    if (ref.kind === "ConfigMap" && ref.name === "settings")
      return { ok: true, status: 200, value: { data: { LEVEL: "debug" } } };
    return {
      ok: false,
      status: 404,
      reason: "NotFound",
      message: `${ref.kind.toLowerCase()}s "${ref.name}" not found`,
    };
  },
} as unknown as KubeClient;

const pod: Pod = {
  metadata: { name: "web-1", namespace: "team-a", uid: "u1", labels: { app: "web" } },
  spec: { serviceAccountName: "bot", containers: [] },
};

describe("a container's environment", () => {
  it("expands $(VAR) references to earlier variables and keeps $$ and unknown references", () => {
    expect(expandReferences("$(A)-$(B)-$$(A)", { A: "1" })).toBe("1-$(B)-$(A)");
  });

  it("resolves fieldRef, secretKeyRef, configMapKeyRef and envFrom, and sets the in-cluster API server", async () => {
    const env = await containerEnv(
      {
        client,
        pod,
        podIP: "10.244.1.2",
        hostIP: "10.244.1.1",
        apiServer: { host: "10.244.1.1", port: 6443 },
      },
      {
        name: "c",
        image: "kyverno-ts",
        envFrom: [{ configMapRef: { name: "settings" }, prefix: "APP_" }],
        env: [
          { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
          { name: "POD_IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
          { name: "APP", valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
          { name: "SA", valueFrom: { fieldRef: { fieldPath: "spec.serviceAccountName" } } },
          { name: "PASSWORD", valueFrom: { secretKeyRef: { name: "creds", key: "password" } } },
          { name: "MISSING", valueFrom: { secretKeyRef: { name: "nope", key: "x", optional: true } } },
          { name: "URL", value: "http://$(POD_IP):8080" },
        ],
      },
      { PATH: "/usr/bin" },
    );
    expect(env).toMatchObject({
      PATH: "/usr/bin",
      APP_LEVEL: "debug",
      POD_NAME: "web-1",
      POD_IP: "10.244.1.2",
      APP: "web",
      SA: "bot",
      PASSWORD: "s3cret",
      URL: "http://10.244.1.2:8080",
      KUBERNETES_SERVICE_HOST: "10.244.1.1",
      KUBERNETES_SERVICE_PORT: "6443",
    });
    expect(env.MISSING).toBeUndefined();
  });

  it("fails naming the Secret when a required one is missing", async () => {
    await expect(
      containerEnv(
        { client, pod, podIP: "", hostIP: "", apiServer: { host: "h", port: 1 } },
        {
          name: "c",
          image: "kyverno-ts",
          env: [{ name: "X", valueFrom: { secretKeyRef: { name: "nope", key: "x" } } }],
        },
        {},
      ),
    ).rejects.toThrow('secret "nope" not found');
  });
});
