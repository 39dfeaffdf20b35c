/**
 * The endpoints controllers: for every Service with a selector, the Endpoints object (ready and
 * not-ready addresses, target ports resolved against each Pod's container ports; labelled
 * `endpointslice.kubernetes.io/skip-mirror` as upstream's) and one EndpointSlice, rewritten when the
 * Pods change; both removed when the Service goes.
 */
import { createHash } from "node:crypto";
import type { KubeClient } from "@kyverno-ts/kube";
import type { Pod } from "../pods/pod-types.js";
import { resolvePort } from "../pods/probes.js";
import { matches, podActive, podReady, type Service } from "./objects.js";

/** One Pod behind a Service. */
export interface ServiceEndpoint {
  ip: string;
  pod: string;
  uid: string;
  ready: boolean;
  /** Service port → the Pod's port. */
  ports: Map<number, number>;
  portNames: Map<number, string>;
}

const MANAGED = "endpointslice.kubernetes.io/skip-mirror";

function targetPort(pod: Pod, target: number | string | undefined, port: number): number | undefined {
  if (target === undefined) return port;
  for (const container of pod.spec.containers) {
    const resolved = resolvePort(container, target);
    if (
      resolved !== undefined &&
      (typeof target === "number" || container.ports?.some((p) => p.name === target))
    )
      return resolved;
  }
  return typeof target === "number" ? target : undefined;
}

/** The Pods behind a Service now (active Pods with an IP that its selector matches). */
export function serviceEndpoints(service: Service, pods: Pod[]): ServiceEndpoint[] {
  const selector = service.spec.selector;
  if (selector === undefined || Object.keys(selector).length === 0) return [];
  const namespace = service.metadata.namespace ?? "default";
  return pods
    .filter(
      (p) =>
        (p.metadata.namespace ?? "default") === namespace && podActive(p) && p.status?.podIP !== undefined,
    )
    .filter((p) => matches({ matchLabels: selector }, p.metadata.labels))
    .map((p) => {
      const ports = new Map<number, number>();
      const portNames = new Map<number, string>();
      for (const sp of service.spec.ports ?? []) {
        const resolved = targetPort(p, sp.targetPort, sp.port);
        if (resolved !== undefined) ports.set(sp.port, resolved);
        portNames.set(sp.port, sp.name ?? "");
      }
      return {
        ip: p.status?.podIP ?? "",
        pod: p.metadata.name,
        uid: p.metadata.uid ?? "",
        ready: podReady(p),
        ports,
        portNames,
      };
    })
    .sort((a, b) => a.ip.localeCompare(b.ip, "en", { numeric: true }));
}

function endpointsObject(service: Service, endpoints: ServiceEndpoint[]) {
  const namespace = service.metadata.namespace ?? "default";
  const groups = new Map<
    string,
    {
      ports: Array<{ name?: string; port: number; protocol: string }>;
      ready: ServiceEndpoint[];
      notReady: ServiceEndpoint[];
    }
  >();
  for (const e of endpoints) {
    const ports = (service.spec.ports ?? [])
      .filter((sp) => e.ports.has(sp.port))
      .map((sp) => ({
        ...(sp.name === undefined ? {} : { name: sp.name }),
        port: e.ports.get(sp.port) ?? sp.port,
        protocol: sp.protocol ?? "TCP",
      }));
    const key = JSON.stringify(ports);
    const group = groups.get(key) ?? { ports, ready: [], notReady: [] };
    (e.ready ? group.ready : group.notReady).push(e);
    groups.set(key, group);
  }
  const address = (e: ServiceEndpoint) => ({
    ip: e.ip,
    targetRef: { kind: "Pod", namespace, name: e.pod, uid: e.uid },
  });
  return {
    apiVersion: "v1",
    kind: "Endpoints",
    metadata: {
      name: service.metadata.name,
      namespace,
      labels: { ...(service.metadata.labels ?? {}), [MANAGED]: "true" },
    },
    subsets: [...groups.values()].map((g) => ({
      ...(g.ready.length > 0 ? { addresses: g.ready.map(address) } : {}),
      ...(g.notReady.length > 0 ? { notReadyAddresses: g.notReady.map(address) } : {}),
      ports: g.ports,
    })),
  };
}

function sliceObject(service: Service, endpoints: ServiceEndpoint[]) {
  const namespace = service.metadata.namespace ?? "default";
  const suffix = createHash("sha256")
    .update(service.metadata.uid ?? service.metadata.name)
    .digest("hex")
    .slice(0, 5);
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      name: `${service.metadata.name}-${suffix}`,
      namespace,
      labels: {
        "kubernetes.io/service-name": service.metadata.name,
        "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
      },
      ownerReferences: [
        {
          apiVersion: "v1",
          kind: "Service",
          name: service.metadata.name,
          uid: service.metadata.uid ?? "",
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    addressType: "IPv4",
    endpoints: endpoints.map((e) => ({
      addresses: [e.ip],
      conditions: { ready: e.ready, serving: e.ready, terminating: false },
      targetRef: { kind: "Pod", namespace, name: e.pod, uid: e.uid },
    })),
    ports: (service.spec.ports ?? []).map((sp) => ({
      ...(sp.name === undefined ? {} : { name: sp.name }),
      port: endpoints[0]?.ports.get(sp.port) ?? (typeof sp.targetPort === "number" ? sp.targetPort : sp.port),
      protocol: sp.protocol ?? "TCP",
    })),
  };
}

async function put(
  client: KubeClient,
  desired: { apiVersion: string; kind: string; metadata: { name: string; namespace: string } },
  existing: Record<string, unknown> | undefined,
  compare: string[],
): Promise<void> {
  const same =
    existing !== undefined &&
    compare.every(
      (k) => JSON.stringify(existing[k]) === JSON.stringify((desired as Record<string, unknown>)[k]),
    );
  if (same) return;
  if (existing === undefined) await client.create(desired);
  else
    await client.update({
      ...desired,
      metadata: {
        ...desired.metadata,
        resourceVersion: (existing.metadata as { resourceVersion?: string }).resourceVersion ?? "",
      },
    });
}

/** Writes the Endpoints and EndpointSlices of every Service, and removes those of deleted Services. */
export async function reconcileEndpoints(
  client: KubeClient,
  services: Service[],
  pods: Pod[],
): Promise<void> {
  const endpointsList = await client.list({ apiVersion: "v1", kind: "Endpoints" });
  const slicesList = await client.list({
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    labelSelector: "endpointslice.kubernetes.io/managed-by=endpointslice-controller.k8s.io",
  });
  if (!endpointsList.ok || !slicesList.ok) return;
  const key = (o: { metadata?: { namespace?: string; name?: string } }) =>
    `${o.metadata?.namespace}/${o.metadata?.name}`;
  const existingEndpoints = new Map(
    endpointsList.value.items.map((o) => [key(o), o as unknown as Record<string, unknown>]),
  );
  const existingSlices = new Map(
    slicesList.value.items.map((o) => [key(o), o as unknown as Record<string, unknown>]),
  );
  const wanted = new Set<string>();
  for (const service of services) {
    if (service.spec.selector === undefined || Object.keys(service.spec.selector).length === 0) continue;
    const endpoints = serviceEndpoints(service, pods);
    const ep = endpointsObject(service, endpoints);
    const slice = sliceObject(service, endpoints);
    wanted.add(key(ep));
    await put(client, ep, existingEndpoints.get(key(ep)), ["subsets"]);
    await put(client, slice, existingSlices.get(key(slice)), ["endpoints", "ports"]);
  }
  for (const [k, ep] of existingEndpoints) {
    const labels = (ep.metadata as { labels?: Record<string, string> }).labels ?? {};
    if (labels[MANAGED] !== "true" || wanted.has(k)) continue;
    const [namespace = "", name = ""] = k.split("/");
    await client.delete({ apiVersion: "v1", kind: "Endpoints", namespace, name });
  }
}
