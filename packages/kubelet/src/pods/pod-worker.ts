/**
 * One Pod on this node, as the kubelet runs it: a network namespace with its own IP, its volumes and
 * ServiceAccount token on disk, init containers in order, then the containers, with the Pod's status
 * (phase, IPs, conditions, container statuses) written back through the status subresource; on
 * deletion every container is stopped within the grace period and the Pod object is removed.
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { KubeClient } from "@kyverno-ts/kube";
import type { ApiServerAccess } from "../api/token-request.js";
import type { PodAttachment, PodNetwork } from "../network/pod-network.js";
import { type ImageSources, resolveImage } from "../runtime/images.js";
import type { ContainerLaunch, ContainerRuntime } from "../runtime/types.js";
import { type ContainerLog, createContainerLog } from "./container-log.js";
import { type ContainerRunner, startContainerRunner } from "./container-runner.js";
import { containerEnv, expandReferences } from "./env.js";
import type { Container, Pod, PodCondition, PodStatus } from "./pod-types.js";
import { type PodVolumes, setUpVolumes } from "./volumes.js";

/** What every Pod worker shares. */
export interface PodWorkerDeps {
  client: KubeClient;
  access: ApiServerAccess;
  network: PodNetwork;
  /** Picks the runtime of a container by its image's kind. */
  runtimeFor: (kind: "kyverno-ts" | "kubectl") => ContainerRuntime;
  images: ImageSources;
  /** The API server as Pods reach it. */
  apiServer: { host: string; port: number };
  stateDir: string;
  /** Called when the Pod's readiness or phase changed (endpoints and controllers look again). */
  onChange: () => void;
  backoffBaseMs?: number;
}

/** A Pod being run. */
export interface PodWorker {
  readonly uid: string;
  readonly namespace: string;
  readonly name: string;
  readonly pod: Pod;
  podIP(): string | undefined;
  ready(): boolean;
  terminating(): boolean;
  logs(): ContainerLog[];
  /** Stops the containers within `graceSeconds` and frees the network; `finalize` deletes the Pod object. */
  terminate(graceSeconds: number, finalize: boolean): Promise<void>;
}

const now = (): string => new Date().toISOString().replace(/\.\d+Z$/, "Z");

function condition(type: string, ok: boolean, previous: PodCondition[] | undefined): PodCondition {
  const status = ok ? "True" : "False";
  const old = previous?.find((c) => c.type === type);
  return {
    type,
    status,
    lastTransitionTime: old?.status === status ? (old.lastTransitionTime ?? now()) : now(),
  };
}

/**
 * What the runtime starts for one instance of a container: its image's entrypoint and environment
 * under the Pod's and container's security context, in the Pod's network namespace with its volumes.
 */
async function containerLaunch(
  pod: Pod,
  deps: PodWorkerDeps,
  where: { podDir: string; attachment: PodAttachment | undefined; volumes: PodVolumes | undefined },
  container: Container,
  instance: number,
): Promise<ContainerLaunch> {
  const { attachment } = where;
  const namespace = pod.metadata.namespace ?? "default";
  const image = resolveImage(container.image, deps.images);
  if ("unsupported" in image) throw new Error(image.unsupported);
  const ip = attachment?.ip ?? "";
  const env = await containerEnv(
    { client: deps.client, pod, podIP: ip, hostIP: deps.network.gateway, apiServer: deps.apiServer },
    container,
    image.env,
  );
  const expand = (words: string[]) => words.map((w) => expandReferences(w, env));
  const command = container.command === undefined ? undefined : expand(container.command);
  const args =
    container.command === undefined && container.args === undefined
      ? image.cmd
      : expand(container.args ?? []);
  const argv = [...(command ?? image.entrypoint), ...args];
  const sc = { ...pod.spec.securityContext, ...container.securityContext };
  const uid = sc.runAsUser ?? image.user?.uid;
  const gid = sc.runAsGroup ?? image.user?.gid ?? uid;
  const groups = [
    ...(pod.spec.securityContext?.fsGroup === undefined ? [] : [pod.spec.securityContext.fsGroup]),
    ...(pod.spec.securityContext?.supplementalGroups ?? []),
  ];
  const scratchDir = join(where.podDir, "containers", `${container.name}-${instance}`);
  mkdirSync(scratchDir, { recursive: true });
  return {
    id: `${namespace}/${pod.metadata.name}/${container.name}`,
    image: container.image,
    argv,
    command,
    args,
    env,
    workingDir: container.workingDir ?? image.workingDir,
    mounts: where.volumes?.mountsOf(container) ?? [],
    netns: { name: attachment?.netns ?? "", path: attachment?.netnsPath ?? "" },
    user: uid === undefined ? undefined : { uid, gid: gid ?? uid, groups },
    readOnlyRootFilesystem: sc.readOnlyRootFilesystem === true,
    dropAllCapabilities: sc.capabilities?.drop?.includes("ALL") === true && sc.privileged !== true,
    noNewPrivileges: sc.allowPrivilegeEscalation === false,
    scratchDir,
  };
}

/** Starts running a Pod bound to this node. */
export function startPodWorker(pod: Pod, deps: PodWorkerDeps): PodWorker {
  const meta = pod.metadata;
  const namespace = meta.namespace ?? "default";
  const podDir = join(deps.stateDir, "pods", `${namespace}_${meta.name}_${(meta.uid ?? "").slice(0, 8)}`);
  const restartPolicy = pod.spec.restartPolicy ?? "Always";
  const logs = new Map<string, ContainerLog>();
  for (const c of [...(pod.spec.initContainers ?? []), ...pod.spec.containers])
    logs.set(c.name, createContainerLog(namespace, meta.name, c.name));
  const initRunners: ContainerRunner[] = [];
  const runners: ContainerRunner[] = [];
  let attachment: PodAttachment | undefined;
  let volumes: PodVolumes | undefined;
  let phase: NonNullable<PodStatus["phase"]> = "Pending";
  let initialized = (pod.spec.initContainers ?? []).length === 0;
  let waitingReason: { reason: string; message: string } | undefined;
  let terminating = false;
  let lastConditions: PodCondition[] | undefined;
  const startTime = now();

  const allReady = (): boolean =>
    phase === "Running" &&
    !terminating &&
    runners.length === pod.spec.containers.length &&
    runners.every((r) => r.ready());

  const status = (): PodStatus => {
    const ip = attachment?.ip;
    const ready = allReady();
    const conditions = [
      condition("PodReadyToStartContainers", attachment !== undefined, lastConditions),
      condition("Initialized", initialized, lastConditions),
      condition("Ready", ready, lastConditions),
      condition("ContainersReady", ready, lastConditions),
      condition("PodScheduled", true, lastConditions),
    ];
    lastConditions = conditions;
    const waiting = (c: Container) => ({
      name: c.name,
      image: c.image,
      imageID: "",
      ready: false,
      started: false,
      restartCount: 0,
      state: { waiting: waitingReason ?? { reason: "PodInitializing" } },
      lastState: {},
    });
    const initStatuses = (pod.spec.initContainers ?? []).map(
      (c, i) => initRunners[i]?.status() ?? waiting(c),
    );
    return {
      phase,
      hostIP: deps.network.gateway,
      ...(ip === undefined ? {} : { podIP: ip, podIPs: [{ ip }] }),
      startTime,
      conditions,
      ...(initStatuses.length > 0 ? { initContainerStatuses: initStatuses } : {}),
      containerStatuses: pod.spec.containers.map((c, i) => runners[i]?.status() ?? waiting(c)),
    };
  };

  let writing: Promise<void> = Promise.resolve();
  let dirty = false;
  const publish = (): void => {
    deps.onChange();
    if (dirty) return;
    dirty = true;
    writing = writing.then(async () => {
      dirty = false;
      await deps.client.patch(
        { apiVersion: "v1", kind: "Pod", namespace, name: meta.name },
        { type: "merge", patch: { status: status() } as never },
        { subresource: "status" },
      );
    });
  };

  const launchOf = (container: Container, instance: number): Promise<ContainerLaunch> =>
    containerLaunch(pod, deps, { podDir, attachment, volumes }, container, instance);

  const runner = (container: Container, isInit: boolean): ContainerRunner => {
    let instance = 0;
    const image = resolveImage(container.image, deps.images);
    const runtime = deps.runtimeFor("unsupported" in image ? "kyverno-ts" : image.kind);
    return startContainerRunner({
      runtime,
      container,
      launch: () => launchOf(container, instance++),
      podIP: attachment?.ip ?? "",
      restartPolicy,
      isInit,
      log: logs.get(container.name) ?? createContainerLog(namespace, meta.name, container.name),
      onChange: publish,
      ...(deps.backoffBaseMs === undefined ? {} : { backoffBaseMs: deps.backoffBaseMs }),
    });
  };

  const run = async (): Promise<void> => {
    for (const c of [...(pod.spec.initContainers ?? []), ...pod.spec.containers]) {
      const image = resolveImage(c.image, deps.images);
      if ("unsupported" in image) {
        waitingReason = { reason: "ErrImagePull", message: image.unsupported };
        publish();
        return;
      }
    }
    mkdirSync(podDir, { recursive: true, mode: 0o755 });
    attachment = await deps.network.attach();
    waitingReason = { reason: "ContainerCreating", message: "" };
    publish();
    while (!terminating) {
      try {
        volumes = await setUpVolumes({ client: deps.client, access: deps.access, pod, podDir });
        break;
      } catch (e) {
        waitingReason = { reason: "ContainerCreating", message: e instanceof Error ? e.message : String(e) };
        publish();
        await new Promise((r) => setTimeout(r, 2000));
      }
    }
    for (const c of pod.spec.initContainers ?? []) {
      if (terminating) return;
      const r = runner(c, true);
      initRunners.push(r);
      const exit = await r.finished;
      if (exit.code !== 0) {
        phase = "Failed";
        publish();
        return;
      }
    }
    if (terminating) return;
    initialized = true;
    for (const c of pod.spec.containers) runners.push(runner(c, false));
    phase = "Running";
    publish();
    if (restartPolicy === "Always") return;
    const exits = await Promise.all(runners.map((r) => r.finished));
    if (terminating) return;
    phase = exits.every((e) => e.code === 0) ? "Succeeded" : "Failed";
    publish();
    // A finished Pod keeps its IP in the status, but its network namespace and token refresh go.
    volumes?.stop();
    if (attachment !== undefined) await deps.network.detach(attachment);
  };
  const running = run().catch((e: unknown) => {
    const message = e instanceof Error ? e.message : String(e);
    logs.get(pod.spec.containers[0]?.name ?? "")?.append(Buffer.from(`kubelet: ${message}\n`));
    waitingReason = { reason: "CreateContainerError", message };
    publish();
  });

  return {
    uid: meta.uid ?? "",
    namespace,
    name: meta.name,
    pod,
    podIP: () => attachment?.ip,
    ready: allReady,
    terminating: () => terminating,
    logs: () => [...logs.values()],
    async terminate(graceSeconds, finalize) {
      if (terminating) return;
      terminating = true;
      deps.onChange();
      const graceMs = graceSeconds * 1000;
      await Promise.all([...initRunners, ...runners].map((r) => r.stop(graceMs, true)));
      await running;
      volumes?.stop();
      if (attachment !== undefined) await deps.network.detach(attachment);
      rmSync(podDir, { recursive: true, force: true });
      await writing.catch(() => undefined);
      if (finalize)
        await deps.client.delete(
          { apiVersion: "v1", kind: "Pod", namespace, name: meta.name },
          { gracePeriodSeconds: 0, preconditions: { uid: meta.uid ?? "" } },
        );
      deps.onChange();
    },
  };
}
