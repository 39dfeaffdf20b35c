// Summarises a V8 heap snapshot (.heapsnapshot, e.g. from `bench-reports.ts --heap-snapshot DIR`), so that
// "12,000 Pods in the informer's Map" can be told from "the event recorder's maps" without DevTools:
// - self size by constructor (what kinds of objects fill the heap);
// - self size by constructor and first retainer (e.g. strings held as `Object.json` or as Map keys);
// - the size retained (dominator tree) by the tops of structures, by what holds them (e.g. the Maps
//   held in closures' `byNamespace` variables: the informer stores).
// Usage: node --max-old-space-size=8192 scripts/heap-summary.ts FILE [--top 30]
import { readFileSync } from "node:fs";

interface Snapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[], ...unknown[]];
      edge_fields: string[];
      edge_types: [string[], ...unknown[]];
    };
    node_count: number;
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

const MiB = 2 ** 20;
const file = process.argv[2];
if (file === undefined || file.startsWith("--")) {
  console.error("usage: node scripts/heap-summary.ts FILE.heapsnapshot [--top N]");
  process.exit(2);
}
const snap = JSON.parse(readFileSync(file, "utf8")) as Snapshot;
const { meta } = snap.snapshot;
const NF = meta.node_fields.length;
const EF = meta.edge_fields.length;
const N = snap.nodes.length / NF;
const nType = meta.node_fields.indexOf("type");
const nName = meta.node_fields.indexOf("name");
const nSize = meta.node_fields.indexOf("self_size");
const nEdges = meta.node_fields.indexOf("edge_count");
const eType = meta.edge_fields.indexOf("type");
const eName = meta.edge_fields.indexOf("name_or_index");
const eTo = meta.edge_fields.indexOf("to_node");
const nodeTypes = meta.node_types[0];
const edgeTypes = meta.edge_types[0];
const WEAK = edgeTypes.indexOf("weak");
const SHORTCUT = edgeTypes.indexOf("shortcut");
const ELEMENT = edgeTypes.indexOf("element");
const HIDDEN = edgeTypes.indexOf("hidden");
const { nodes, edges, strings } = snap;

const typeOf = (n: number): string => nodeTypes[nodes[n * NF + nType] as number] ?? "?";
const nameOf = (n: number): string => strings[nodes[n * NF + nName] as number] ?? "?";
const sizeOf = (n: number): number => nodes[n * NF + nSize] as number;

/** A class for the constructor table: objects by constructor, strings together, arrays by their name. */
function classOf(n: number): string {
  const type = typeOf(n);
  if (type === "object" || type === "closure")
    return type === "closure" ? `(closure) ${nameOf(n)}` : nameOf(n);
  if (type === "string") return "(string)";
  if (type === "concatenated string" || type === "sliced string") return `(${type})`;
  if (type === "array") return `(array ${nameOf(n)})`;
  return `(${type})`;
}

// First edge index of every node.
const firstEdge = new Uint32Array(N + 1);
for (let n = 0, e = 0; n < N; n++) {
  firstEdge[n] = e;
  e += (nodes[n * NF + nEdges] as number) * EF;
}
firstEdge[N] = edges.length;

const followed = (e: number): boolean => {
  const t = edges[e + eType] as number;
  return t !== WEAK && t !== SHORTCUT;
};
const edgeLabel = (e: number): string => {
  const t = edges[e + eType] as number;
  const v = edges[e + eName] as number;
  return t === ELEMENT || t === HIDDEN ? `[${v}]` : (strings[v] ?? "?");
};

// Self size by class.
const byClass = new Map<string, { count: number; size: number }>();
let total = 0;
for (let n = 0; n < N; n++) {
  const c = classOf(n);
  const entry = byClass.get(c) ?? { count: 0, size: 0 };
  entry.count++;
  entry.size += sizeOf(n);
  total += sizeOf(n);
  byClass.set(c, entry);
}
const top = flag("top", 30);
console.log(`${file}: ${N} nodes, ${(total / MiB).toFixed(1)} MiB self size`);
console.log("\nself size by constructor:");
for (const [c, { count, size }] of [...byClass].sort((a, b) => b[1].size - a[1].size).slice(0, top))
  console.log(`  ${(size / MiB).toFixed(1).padStart(7)} MiB ${String(count).padStart(9)}  ${c}`);

// Dominators (Cooper, Harvey, Kennedy) over a reverse post-order from the root (node 0).
const order = new Int32Array(N).fill(-1); // post-order number of each node
const byOrder = new Int32Array(N);
let visited = 0;
{
  const stack = new Int32Array(N);
  const cursor = new Uint32Array(N);
  const seen = new Uint8Array(N);
  let sp = 0;
  stack[sp++] = 0;
  seen[0] = 1;
  cursor[0] = firstEdge[0] as number;
  while (sp > 0) {
    const n = stack[sp - 1] as number;
    const end = firstEdge[n + 1] as number;
    let pushed = false;
    while ((cursor[n] as number) < end) {
      const e = cursor[n] as number;
      cursor[n] = e + EF;
      if (!followed(e)) continue;
      const to = (edges[e + eTo] as number) / NF;
      if (seen[to]) continue;
      seen[to] = 1;
      cursor[to] = firstEdge[to] as number;
      stack[sp++] = to;
      pushed = true;
      break;
    }
    if (!pushed) {
      sp--;
      order[n] = visited;
      byOrder[visited++] = n;
    }
  }
}
// Predecessors (reachable ones only), in CSR form.
const predCount = new Uint32Array(N + 1);
for (let n = 0; n < N; n++) {
  if ((order[n] as number) < 0) continue;
  for (let e = firstEdge[n] as number; e < (firstEdge[n + 1] as number); e += EF)
    if (followed(e)) predCount[(edges[e + eTo] as number) / NF + 1]++;
}
for (let n = 0; n < N; n++) predCount[n + 1] = (predCount[n + 1] as number) + (predCount[n] as number);
const preds = new Int32Array(predCount[N] as number);
{
  const fill = predCount.slice(0, N);
  for (let n = 0; n < N; n++) {
    if ((order[n] as number) < 0) continue;
    for (let e = firstEdge[n] as number; e < (firstEdge[n + 1] as number); e += EF) {
      if (!followed(e)) continue;
      const to = (edges[e + eTo] as number) / NF;
      preds[fill[to]++] = n;
    }
  }
}
const idom = new Int32Array(N).fill(-1);
idom[0] = 0;
const intersect = (a: number, b: number): number => {
  let x = a;
  let y = b;
  while (x !== y) {
    while ((order[x] as number) < (order[y] as number)) x = idom[x] as number;
    while ((order[y] as number) < (order[x] as number)) y = idom[y] as number;
  }
  return x;
};
for (let changed = true; changed; ) {
  changed = false;
  for (let i = visited - 2; i >= 0; i--) {
    const n = byOrder[i] as number;
    let dom = -1;
    for (let p = predCount[n] as number; p < (predCount[n + 1] as number); p++) {
      const pred = preds[p] as number;
      if ((idom[pred] as number) < 0) continue;
      dom = dom < 0 ? pred : intersect(pred, dom);
    }
    if (dom >= 0 && idom[n] !== dom) {
      idom[n] = dom;
      changed = true;
    }
  }
}
// Retained sizes: children before parents (post-order).
const retained = new Float64Array(N);
for (let i = 0; i < visited; i++) {
  const n = byOrder[i] as number;
  retained[n] = (retained[n] as number) + sizeOf(n);
  if (n !== 0)
    retained[idom[n] as number] = (retained[idom[n] as number] as number) + (retained[n] as number);
}

console.log(`\nreachable: ${visited} nodes, ${((retained[0] as number) / MiB).toFixed(1)} MiB`);

// Self size by class and by what holds it (the first retainer's class and the edge's name; elements
// as `[]`): e.g. "(string) <- Object.uid" tells the strings kept as uids from the ones kept as messages.
const byHolder = new Map<string, { count: number; size: number }>();
const byTop = new Map<string, { count: number; size: number }>();
for (let n = 1; n < N; n++) {
  if ((order[n] as number) < 0) continue;
  const p = predCount[n] as number;
  if (p === predCount[n + 1]) continue;
  const holder = preds[p] as number;
  let label = "?";
  for (let e = firstEdge[holder] as number; e < (firstEdge[holder + 1] as number); e += EF) {
    if ((edges[e + eTo] as number) / NF !== n) continue;
    const t = edges[e + eType] as number;
    label = t === ELEMENT || t === HIDDEN ? "[]" : edgeLabel(e);
    break;
  }
  const k = `${classOf(n)} <- ${classOf(holder)}.${label}`;
  const entry = byHolder.get(k) ?? { count: 0, size: 0 };
  entry.count++;
  entry.size += sizeOf(n);
  byHolder.set(k, entry);
  // The top of a structure (held by something of another class): what it retains, by holder.
  if (classOf(holder) === classOf(n) || holder !== idom[n]) continue;
  const tops = byTop.get(k) ?? { count: 0, size: 0 };
  tops.count++;
  tops.size += retained[n] as number;
  byTop.set(k, tops);
}
console.log("\nself size by constructor and first retainer:");
for (const [c, { count, size }] of [...byHolder].sort((a, b) => b[1].size - a[1].size).slice(0, top))
  console.log(`  ${(size / MiB).toFixed(1).padStart(7)} MiB ${String(count).padStart(9)}  ${c}`);
console.log("\nretained size of structures (held by their dominator, of another class), by holder:");
for (const [c, { count, size }] of [...byTop].sort((a, b) => b[1].size - a[1].size).slice(0, top))
  console.log(`  ${(size / MiB).toFixed(1).padStart(7)} MiB ${String(count).padStart(9)}  ${c}`);
