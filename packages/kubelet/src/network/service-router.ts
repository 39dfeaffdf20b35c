/**
 * Which Pod answers a Service port: the ready, not terminating Pods its selector matches, in turn
 * (round robin per Service), at the container port the Service's `targetPort` names.
 */
import { matches, type Service } from "../controllers/objects.js";
import type { PodWorker } from "../pods/pod-worker.js";
import { resolvePort } from "../pods/probes.js";

/** The router; see `createServiceRouter`. */
export interface ServiceRouter {
  /** The Services of the latest reconcile pass. */
  setServices(services: Service[]): void;
  /** The address of a ready Pod behind a Service port, or `undefined`. */
  pick(namespace: string, name: string, port: number): { host: string; port: number } | undefined;
}

/** Creates a router over the node's running Pods. */
export function createServiceRouter(workers: () => PodWorker[]): ServiceRouter {
  let services: Service[] = [];
  const rotation = new Map<string, number>();

  const readyBehind = (namespace: string, selector: Record<string, string>): PodWorker[] =>
    workers().filter(
      (w) =>
        w.namespace === namespace &&
        w.ready() &&
        !w.terminating() &&
        w.podIP() !== undefined &&
        matches({ matchLabels: selector }, w.pod.metadata.labels),
    );

  return {
    setServices(next) {
      services = next;
    },
    pick(namespace, name, port) {
      const service = services.find(
        (s) => s.metadata.name === name && (s.metadata.namespace ?? "default") === namespace,
      );
      const servicePort = service?.spec.ports?.find((p) => p.port === port);
      if (service?.spec.selector === undefined || servicePort === undefined) return undefined;
      const ready = readyBehind(namespace, service.spec.selector);
      if (ready.length === 0) return undefined;
      const key = `${namespace}/${name}`;
      const turn = rotation.get(key) ?? 0;
      rotation.set(key, turn + 1);
      const worker = ready[turn % ready.length] as PodWorker;
      const target = servicePort.targetPort ?? port;
      const resolved = worker.pod.spec.containers
        .map((c) => resolvePort(c, target))
        .find((p) => p !== undefined);
      return {
        host: worker.podIP() as string,
        port: resolved ?? (typeof target === "number" ? target : port),
      };
    },
  };
}
