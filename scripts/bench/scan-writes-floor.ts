// A floor of bench:scan (scripts/bench-reports.ts): the scan's own writes without the scan. After the
// controller has written its reports, the bench reads them back and creates copies of them (same
// content, other names, in a namespace of their own) and as many copies of one of its Events as it
// created, with as many writers as the controller has workers. What that costs the client and the API
// server is what any controller writing the same reports and Events pays, whatever it does besides;
// the small-ConfigMap write floor is the same count of the cheapest writes.
import type { KubeClient, KubeObject } from "../../packages/kube/dist/index.js";

export interface SameWritesFloor {
  reports: number;
  events: number;
  ms: number;
  /** CPU seconds of the writing process (this one) and of the API server's process. */
  clientCpu: number;
  apiServerCpu: number;
}

export interface SameWritesOptions {
  client: KubeClient;
  /** Writers at once (the controller's workers). */
  concurrency: number;
  /** How many Events the scan created. */
  events: number;
  /** The API server's CPU seconds so far (from /proc). */
  apiServerCpu: () => number;
  inParallel: <T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>) => Promise<void>;
}

const NAMESPACE = "same-writes-floor";

/** Every object of a kind, page by page. */
async function listAll(client: KubeClient, apiVersion: string, kind: string): Promise<KubeObject[]> {
  const out: KubeObject[] = [];
  let token: string | undefined;
  do {
    const page = await client.list({ apiVersion, kind, limit: 500, ...(token ? { continue: token } : {}) });
    if (!page.ok) throw new Error(`list ${kind}: ${page.message}`);
    out.push(...(page.value.items as KubeObject[]));
    token = page.value.metadata.continue || undefined;
  } while (token);
  return out;
}

/** The object as a new one: its content, a new name, this floor's namespace, no server-set fields. */
function copyOf(object: KubeObject, name: string): KubeObject {
  const { metadata, ...rest } = object;
  return {
    ...rest,
    metadata: {
      name,
      namespace: NAMESPACE,
      ...(metadata?.labels === undefined ? {} : { labels: metadata.labels }),
      ...(metadata?.annotations === undefined ? {} : { annotations: metadata.annotations }),
    },
  } as KubeObject;
}

/** Creates copies of the scan's reports and of its Events and measures what that costs. */
export async function sameWritesFloor(options: SameWritesOptions): Promise<SameWritesFloor> {
  const { client, concurrency } = options;
  const must = (r: { ok: boolean; message?: string }): void => {
    if (!r.ok) throw new Error(r.message);
  };
  must(await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } }));
  const reports = await listAll(client, "wgpolicyk8s.io/v1alpha2", "PolicyReport");
  const sample = await client.list({ apiVersion: "events.k8s.io/v1", kind: "Event", limit: 1 });
  const event = sample.ok ? (sample.value.items[0] as KubeObject | undefined) : undefined;
  const writes: KubeObject[] = reports.map((report, i) => copyOf(report, `copy-${i}`));
  if (event !== undefined) {
    for (let i = 0; i < options.events; i++) {
      const copy = copyOf(event, `copy-${i}`) as KubeObject & { regarding?: Record<string, unknown> };
      // An Event names an object of its own namespace.
      if (copy.regarding !== undefined) copy.regarding = { ...copy.regarding, namespace: NAMESPACE };
      writes.push(copy);
    }
  }
  // Reports and Events interleaved, as the controller sends them.
  writes.sort((a, b) => Number(a.metadata?.name?.slice(5)) - Number(b.metadata?.name?.slice(5)));
  const apiBefore = options.apiServerCpu();
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  await options.inParallel(writes, concurrency, async (object) => must(await client.create(object)));
  const ms = performance.now() - start;
  const { user, system } = process.cpuUsage(cpuBefore);
  return {
    reports: reports.length,
    events: event === undefined ? 0 : options.events,
    ms,
    clientCpu: (user + system) / 1e6,
    apiServerCpu: options.apiServerCpu() - apiBefore,
  };
}
