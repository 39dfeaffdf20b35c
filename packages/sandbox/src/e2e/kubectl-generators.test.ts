/**
 * kubectl's `create <generator>` commands use typed clientsets, which send protobuf bodies and do not
 * fall back to JSON. Each case creates an object with the real kubectl and checks that the stored
 * object (`kubectl get -o json`) is what `--dry-run=client -o json` prints for the same command.
 */

import { writeFileSync } from "node:fs";
import { request } from "node:https";
import { join } from "node:path";
import type { JsonObject } from "@kyverno-ts/api";
import { kubectlAvailable, kubectlFor, NO_KUBECTL } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../index.js";

const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn(`skipping kubectl generator e2e tests: ${NO_KUBECTL}`);

/** A CronJob with most of what a pod template can hold, applied as JSON and copied by `create job --from`. */
const RICH_CRONJOB = `apiVersion: batch/v1
kind: CronJob
metadata: {name: rich, namespace: gen}
spec:
  schedule: "0 * * * *"
  concurrencyPolicy: Forbid
  jobTemplate:
    metadata: {labels: {jt: x}}
    spec:
      parallelism: 2
      completions: 4
      backoffLimit: 0
      completionMode: Indexed
      podFailurePolicy:
        rules:
        - {action: FailJob, onExitCodes: {containerName: main, operator: In, values: [1, 42]}}
        - {action: Ignore, onPodConditions: [{type: DisruptionTarget, status: "True"}]}
      template:
        metadata: {labels: {p: q}}
        spec:
          restartPolicy: Never
          terminationGracePeriodSeconds: 0
          nodeSelector: {disk: ssd}
          serviceAccountName: sa1
          hostNetwork: true
          automountServiceAccountToken: false
          priority: 0
          enableServiceLinks: false
          overhead: {cpu: 250m}
          os: {name: linux}
          imagePullSecrets: [{name: reg}]
          hostAliases: [{ip: 1.2.3.4, hostnames: [a.example]}]
          dnsConfig: {nameservers: [8.8.8.8], options: [{name: ndots, value: "2"}, {name: edns0}]}
          securityContext:
            runAsUser: 0
            supplementalGroups: [1, 300000]
            fsGroup: 2000
            sysctls: [{name: net.core.somaxconn, value: "1024"}]
            seccompProfile: {type: RuntimeDefault}
          tolerations: [{key: k, operator: Equal, value: v, effect: NoExecute, tolerationSeconds: 0}, {operator: Exists}]
          topologySpreadConstraints:
          - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {p: q}}, minDomains: 2}
          affinity:
            nodeAffinity:
              requiredDuringSchedulingIgnoredDuringExecution:
                nodeSelectorTerms: [{matchExpressions: [{key: k, operator: In, values: [a, b]}]}]
              preferredDuringSchedulingIgnoredDuringExecution:
              - {weight: 10, preference: {matchFields: [{key: metadata.name, operator: NotIn, values: [n1]}]}}
            podAntiAffinity:
              requiredDuringSchedulingIgnoredDuringExecution:
              - {topologyKey: host, labelSelector: {matchExpressions: [{key: app, operator: Exists}]}, namespaces: [n1]}
          volumes:
          - {name: hp, hostPath: {path: /x, type: Directory}}
          - {name: ed, emptyDir: {medium: Memory, sizeLimit: 64Mi}}
          - {name: sec, secret: {secretName: s1, items: [{key: k, path: p, mode: 0}], defaultMode: 420}}
          - {name: pvc, persistentVolumeClaim: {claimName: c1, readOnly: true}}
          - {name: cm, configMap: {name: cm1, optional: true}}
          - name: proj
            projected:
              sources:
              - {secret: {name: s2}}
              - {downwardAPI: {items: [{path: nm, fieldRef: {fieldPath: metadata.name}}]}}
              - {serviceAccountToken: {audience: aud, expirationSeconds: 3600, path: token}}
          initContainers: [{name: init, image: busybox, restartPolicy: Always}]
          containers:
          - name: main
            image: nginx:1.27
            command: [/bin/sh]
            args: [-c, "echo"]
            workingDir: /w
            ports: [{name: http, hostPort: 8080, containerPort: 80, protocol: TCP}, {containerPort: 0}]
            env:
            - {name: A, value: B}
            - {name: F, valueFrom: {fieldRef: {apiVersion: v1, fieldPath: metadata.name}}}
            - {name: R, valueFrom: {resourceFieldRef: {resource: requests.memory, divisor: 1Mi}}}
            - {name: C, valueFrom: {configMapKeyRef: {name: cm1, key: k, optional: false}}}
            - {name: S, valueFrom: {secretKeyRef: {name: s1, key: k}}}
            envFrom: [{prefix: P_, configMapRef: {name: cm1}}, {secretRef: {name: s1, optional: true}}]
            resources: {limits: {cpu: "2", memory: 512Mi}, requests: {cpu: 100m}}
            volumeMounts: [{name: hp, readOnly: true, mountPath: /hp, subPath: s}, {name: ed, mountPath: /ed}]
            livenessProbe:
              httpGet: {path: /h, port: 8080, scheme: HTTPS, httpHeaders: [{name: X-Probe, value: hdr}]}
              periodSeconds: 3
              failureThreshold: 5
            readinessProbe: {tcpSocket: {port: http}}
            startupProbe: {grpc: {port: 9090}}
            lifecycle: {postStart: {exec: {command: [a, b]}}, preStop: {sleep: {seconds: 0}}}
            imagePullPolicy: Always
            securityContext:
              capabilities: {add: [NET_ADMIN], drop: [ALL]}
              privileged: false
              runAsNonRoot: true
              allowPrivilegeEscalation: false
            stdin: true
            tty: true
`;

describe.skipIf(!hasKubectl)("kubectl generators (protobuf request bodies) against the sandbox", () => {
  let sandbox: Sandbox;
  let kubectl: ReturnType<typeof kubectlFor>;

  beforeAll(async () => {
    sandbox = await startSandbox({});
    kubectl = kubectlFor(sandbox.kubeconfigPath);
    expect((await kubectl(["create", "namespace", "gen"])).stdout).toBe("namespace/gen created\n");
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  /** Runs a generator, and expects the stored object to be what its client-side dry run prints. */
  async function generate(args: string[], get: string[]): Promise<JsonObject> {
    const dashes = args.includes("--") ? args.indexOf("--") : args.length;
    const dryArgs = [...args.slice(0, dashes), "--dry-run=client", "-o", "json", ...args.slice(dashes)];
    const dry = await kubectl(dryArgs);
    expect(dry.stderr).toBe("");
    const expected = JSON.parse(dry.stdout) as JsonObject & { metadata: JsonObject };
    const created = await kubectl(args);
    expect(created.stderr).toBe("");
    expect(created.code).toBe(0);
    const stored = JSON.parse((await kubectl(["get", ...get, "-o", "json"])).stdout) as JsonObject;
    // Set by the server: the creation time, and the status (reset on create).
    delete expected.metadata.creationTimestamp;
    delete expected.status;
    expect(stored).toMatchObject(expected);
    expect(stored.metadata).toMatchObject({ uid: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    return stored;
  }
  const ns = ["-n", "gen"];

  it("creates Deployments (replicas, ports, several images, zero replicas)", { timeout: 30000 }, async () => {
    await generate(["create", "deployment", "web", "--image", "nginx", ...ns], ["deploy", "web", ...ns]);
    const multi = await generate(
      [
        "create",
        "deployment",
        "multi",
        "--image",
        "nginx",
        "--image",
        "busybox:1.36",
        "--replicas",
        "3",
      ].concat(["--port", "8080", ...ns]),
      ["deploy", "multi", ...ns],
    );
    expect(multi.spec).toMatchObject({
      replicas: 3,
      template: { metadata: { creationTimestamp: null }, spec: { containers: [{ resources: {} }, {}] } },
    });
    const zero = await generate(
      ["create", "deployment", "zero", "--image", "nginx", "--replicas", "0", ...ns],
      ["deploy", "zero", ...ns],
    );
    expect(zero.spec).toMatchObject({ replicas: 0 });
  });

  it("creates Jobs and CronJobs, and a Job from a CronJob", { timeout: 30000 }, async () => {
    await generate(
      ["create", "job", "once", "--image", "busybox", ...ns, "--", "echo", "hi"],
      ["job", "once", ...ns],
    );
    await generate(
      [
        "create",
        "cronjob",
        "tick",
        "--image",
        "busybox",
        "--schedule",
        "*/5 * * * *",
        "--restart",
        "OnFailure",
      ].concat([...ns, "--", "date"]),
      ["cronjob", "tick", ...ns],
    );
    const fromCron = await generate(
      ["create", "job", "manual", "--from=cronjob/tick", ...ns],
      ["job", "manual", ...ns],
    );
    expect(fromCron.metadata).toMatchObject({
      annotations: { "cronjob.kubernetes.io/instantiate": "manual" },
      ownerReferences: [{ apiVersion: "batch/v1", kind: "CronJob", name: "tick", controller: true }],
    });
  });

  it("copies a rich pod template through protobuf (create job --from=cronjob)", {
    timeout: 30000,
  }, async () => {
    const file = join(sandbox.kubeconfigPath, "..", "rich-cronjob.yaml");
    writeFileSync(file, RICH_CRONJOB);
    expect((await kubectl(["apply", "-f", file])).stdout).toBe("cronjob.batch/rich created\n");
    const job = await generate(
      ["create", "job", "rich-run", "--from=cronjob/rich", ...ns],
      ["job", "rich-run", ...ns],
    );
    expect(job.spec).toMatchObject({
      backoffLimit: 0,
      template: {
        spec: {
          terminationGracePeriodSeconds: 0,
          priority: 0,
          securityContext: { runAsUser: 0, supplementalGroups: [1, 300000] },
          tolerations: [{ tolerationSeconds: 0 }, { operator: "Exists" }],
          containers: [
            {
              ports: [{ containerPort: 80 }, { containerPort: 0 }],
              startupProbe: { grpc: { service: null } },
            },
          ],
        },
      },
    });
  });

  it("creates Services of every type", { timeout: 30000 }, async () => {
    const svc = (name: string, ...args: string[]) =>
      generate(
        ["create", "service", ...args.slice(0, 1), name, ...args.slice(1), ...ns],
        ["svc", name, ...ns],
      );
    const ip = await svc("cip", "clusterip", "--tcp", "80:8080", "--tcp", "443");
    expect(ip.spec).toMatchObject({ ports: [{ targetPort: 8080 }, { port: 443, targetPort: 443 }] });
    await svc("headless", "clusterip", "--clusterip", "None");
    await svc("np", "nodeport", "--tcp", "80:8080", "--node-port", "30080");
    await svc("lb", "loadbalancer", "--tcp", "5678:8080");
    await svc("ext", "externalname", "--external-name", "example.com");
  });

  it("creates RBAC objects", { timeout: 30000 }, async () => {
    await generate(
      ["create", "clusterrole", "reader", "--verb", "get,list", "--resource", "pods,deployments.apps"].concat(
        ["--resource-name", "x"],
      ),
      ["clusterrole", "reader"],
    );
    await generate(
      ["create", "clusterrole", "logs", "--verb", "get", "--non-resource-url", "/logs/*"],
      ["clusterrole", "logs"],
    );
    const aggregated = await generate(
      ["create", "clusterrole", "agg", "--aggregation-rule", "rbac.example.com/aggregate=true"],
      ["clusterrole", "agg"],
    );
    expect(aggregated.rules).toBeNull();
    await generate(
      ["create", "clusterrolebinding", "readers", "--clusterrole", "reader", "--user", "alice"].concat([
        "--group",
        "devs",
        "--serviceaccount",
        "gen:default",
      ]),
      ["clusterrolebinding", "readers"],
    );
    await generate(
      ["create", "role", "r", "--verb", "get", "--resource", "configmaps", ...ns],
      ["role", "r", ...ns],
    );
    await generate(
      ["create", "rolebinding", "rb", "--role", "r", "--user", "bob", ...ns],
      ["rolebinding", "rb", ...ns],
    );
  });

  it("creates core objects: namespace, configmap, secrets, service account", { timeout: 30000 }, async () => {
    await generate(["create", "namespace", "other"], ["namespace", "other"]);
    await generate(
      ["create", "configmap", "cfg", "--from-literal=a=1", "--from-literal=b=", ...ns],
      ["configmap", "cfg", ...ns],
    );
    await generate(
      ["create", "secret", "generic", "s", "--from-literal=k=v", "--from-literal=empty=", ...ns],
      ["secret", "s", ...ns],
    );
    await generate(
      [
        "create",
        "secret",
        "docker-registry",
        "reg",
        "--docker-server=r.example",
        "--docker-username=u",
      ].concat(["--docker-password=p", ...ns]),
      ["secret", "reg", ...ns],
    );
    await generate(["create", "serviceaccount", "robot", ...ns], ["serviceaccount", "robot", ...ns]);
  });

  it("creates PriorityClasses, PodDisruptionBudgets and Ingresses", { timeout: 30000 }, async () => {
    const pc = await generate(
      ["create", "priorityclass", "high", "--value", "1000", "--description", "high prio"].concat([
        "--preemption-policy",
        "Never",
      ]),
      ["priorityclasses.scheduling.k8s.io", "high"],
    );
    expect(pc).toMatchObject({ value: 1000, preemptionPolicy: "Never" });
    const min = await generate(
      ["create", "poddisruptionbudget", "min", "--selector", "app=web", "--min-available", "50%", ...ns],
      ["poddisruptionbudgets.policy", "min", ...ns],
    );
    expect(min.spec).toEqual({ minAvailable: "50%", selector: { matchLabels: { app: "web" } } });
    const max = await generate(
      ["create", "pdb", "max", "--selector", "app=web", "--max-unavailable", "1", ...ns],
      ["poddisruptionbudgets.policy", "max", ...ns],
    );
    expect(max.spec).toMatchObject({ maxUnavailable: 1 });
    await generate(
      ["create", "ingress", "ing", "--class", "nginx", "--rule", "foo.com/bar*=svc:8080,tls=secret1"].concat([
        "--rule",
        "/path=svc2:http",
        "--default-backend",
        "defsvc:80",
        "--annotation",
        "a=b",
        ...ns,
      ]),
      ["ingresses.networking.k8s.io", "ing", ...ns],
    );
  });

  it("runs the JSON and patch commands: run, expose, scale, set image, label, annotate", {
    timeout: 30000,
  }, async () => {
    await generate(
      ["run", "pod1", "--image", "nginx", "--port", "80", "--labels", "app=p", "--env", "A=B", ...ns].concat([
        "--",
        "sleep",
        "1000",
      ]),
      ["pod", "pod1", ...ns],
    );
    await kubectl(["create", "deployment", "app", "--image", "nginx", "--port", "8080", ...ns]);
    await generate(
      ["expose", "deployment", "app", "--port", "80", "--target-port", "8080", "--name", "app-svc", ...ns],
      ["svc", "app-svc", ...ns],
    );
    const commands: Array<[string[], string]> = [
      [["scale", "deployment", "app", "--replicas", "5"], "deployment.apps/app scaled\n"],
      [["set", "image", "deployment/app", "nginx=nginx:1.27"], "deployment.apps/app image updated\n"],
      [["label", "deployment", "app", "tier=web"], "deployment.apps/app labeled\n"],
      [["annotate", "deployment", "app", "note=hi"], "deployment.apps/app annotated\n"],
    ];
    for (const [args, out] of commands) expect((await kubectl([...args, ...ns])).stdout).toBe(out);
    const app = JSON.parse((await kubectl(["get", "deploy", "app", "-o", "json", ...ns])).stdout);
    expect(app).toMatchObject({
      metadata: { labels: { app: "app", tier: "web" }, annotations: { note: "hi" } },
      spec: { replicas: 5, template: { spec: { containers: [{ image: "nginx:1.27" }] } } },
    });
  });

  it("answers a malformed protobuf body with a 400 Status and an unknown kind with a 415", async () => {
    const post = (body: Buffer): Promise<{ status: number; body: string }> =>
      new Promise((resolve, reject) => {
        const req = request(
          `${sandbox.url}/api/v1/namespaces/gen/configmaps`,
          {
            method: "POST",
            ca: sandbox.caCertPem,
            headers: {
              authorization: `Bearer ${sandbox.users["kubernetes-admin"] ?? ""}`,
              "content-type": "application/vnd.kubernetes.protobuf",
            },
          },
          (res) => {
            let text = "";
            res.on("data", (c: Buffer) => {
              text += c.toString("utf8");
            });
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
          },
        );
        req.on("error", reject);
        req.end(body);
      });
    const configMap = "k8s\0\x0a\x0f\x0a\x02v1\x12\x09ConfigMap";
    // The object's metadata field announces 5 bytes and has 2.
    const truncated = await post(Buffer.from(`${configMap}\x12\x04\x0a\x05\x0a\x01`, "latin1"));
    expect(truncated.status).toBe(400);
    expect(JSON.parse(truncated.body)).toMatchObject({
      kind: "Status",
      reason: "BadRequest",
      code: 400,
      message: expect.stringContaining("cannot be handled as a ConfigMap: unexpected EOF"),
    });
    const widget = Buffer.from("k8s\0\x0a\x0c\x0a\x02v1\x12\x06Widget\x12\x00", "latin1");
    expect((await post(widget)).status).toBe(415);
  });
});
