// Summarises a V8 .cpuprofile (node --cpu-prof, e.g. `bench:scan -- --cpu-prof DIR`) without DevTools:
// self time by function, by module (a package's dist or a node: builtin) and the inclusive ("total")
// time of the functions that most time is spent under.
// Usage: node scripts/cpu-profile-summary.ts FILE [--top 40] [--match REGEX] (only functions whose
//   "name file:line" matches REGEX in the inclusive table, e.g. --match 'reports|kube/dist')
import { readFileSync } from "node:fs";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const file = process.argv[2];
if (file === undefined)
  throw new Error("usage: node scripts/cpu-profile-summary.ts FILE [--top N] [--match REGEX]");
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const top = Number(arg("top") ?? 40);
const match = arg("match");
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;

/** A short module name: @kyverno-ts/<pkg>/<file>, node_modules/<pkg>, node:<builtin> or the V8 pseudo-frames. */
function moduleOf(url: string, name: string): string {
  if (url === "") return `(${name.replace(/^\(|\)$/g, "")})`;
  const pkg = /\/packages\/([^/]+)\/dist\/(.*)$/.exec(url);
  if (pkg) return `${pkg[1]}/${pkg[2]}`;
  const dep = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (dep) return `node_modules/${dep[1]}`;
  return url.replace(/^file:\/\//, "");
}
const label = (f: CallFrame): string =>
  `${f.functionName || "(anonymous)"} ${moduleOf(f.url, f.functionName)}:${f.lineNumber + 1}`;

const byId = new Map<number, ProfileNode>();
const parent = new Map<number, number>();
for (const n of profile.nodes) {
  byId.set(n.id, n);
  for (const c of n.children ?? []) parent.set(c, n.id);
}
const selfUs = new Map<number, number>();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i] as number;
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
let totalUs = 0;
for (const us of selfUs.values()) totalUs += us;

const bySelfFn = new Map<string, number>();
const byModule = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const [id, us] of selfUs) {
  const node = byId.get(id) as ProfileNode;
  const f = node.callFrame;
  bySelfFn.set(label(f), (bySelfFn.get(label(f)) ?? 0) + us);
  const m = moduleOf(f.url, f.functionName);
  byModule.set(m, (byModule.get(m) ?? 0) + us);
  // Inclusive: every distinct function on the stack gets the sample once (recursion counted once).
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const l = label((byId.get(at) as ProfileNode).callFrame);
    if (seen.has(l)) continue;
    seen.add(l);
    inclusive.set(l, (inclusive.get(l) ?? 0) + us);
  }
}

const print = (title: string, m: Map<string, number>, filter?: RegExp) => {
  console.log(`\n${title}`);
  const rows = [...m].filter(([k]) => filter === undefined || filter.test(k)).sort((a, b) => b[1] - a[1]);
  for (const [k, us] of rows.slice(0, top))
    console.log(
      `${(us / 1e6).toFixed(2).padStart(7)} s ${((us / totalUs) * 100).toFixed(1).padStart(5)} %  ${k}`,
    );
};

console.log(`${file}: ${(totalUs / 1e6).toFixed(2)} s sampled, ${profile.samples.length} samples`);
print("self time by module", byModule);
print("self time by function", bySelfFn);
print("inclusive time by function", inclusive, match === undefined ? undefined : new RegExp(match));
