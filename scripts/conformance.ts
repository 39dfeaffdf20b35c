// Runs `kyverno-ts test` (in-process, from the built CLI) over every folder of the shared Kyverno
// conformance suite (the classic set and the CEL set: folders ending -cel, -vpol, -mpol, -gpol) and
// prints pass counts per folder and per set, then the failing tests with the first failing line's
// reason. The ratchet holds the totals and each set's counts; none may drop.
//
//   node scripts/conformance.ts            # report
//   node scripts/conformance.ts --check    # also exit 1 when below scripts/conformance-ratchet.json
//   node scripts/conformance.ts --update   # write the current counts into the ratchet file
//
// Plain Node 24 type stripping: erasable TypeScript only.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { CliIo, LineOutcome, TestFileResult } from "../packages/cli/dist/index.js";

const SUITE = fileURLToPath(new URL("../../shared/conformance/kyverno-policies", import.meta.url));
const RATCHET = fileURLToPath(new URL("./conformance-ratchet.json", import.meta.url));
const CLI = new URL("../packages/cli/dist/index.js", import.meta.url);
/** Folders of CEL-based policies (validate.cel, ValidatingPolicy, MutatingPolicy, GeneratingPolicy). */
const CEL_SUFFIXES = ["-cel", "-vpol", "-mpol", "-gpol"];

interface Counts {
  testsPassing: number;
  linesPassing: number;
}

interface Ratchet extends Counts {
  /** Per set (`classic`, `cel`); older ratchet files have only the totals. */
  sets?: Record<string, Counts>;
}

interface FolderCounts {
  folder: string;
  tests: number;
  testsPassing: number;
  lines: number;
  linesPassing: number;
}

const args = new Set(process.argv.slice(2));
const check = args.has("--check");
const update = args.has("--update");

if (!existsSync(SUITE)) {
  console.error(`conformance suite not found at ${SUITE} (expected ../shared next to the repository)`);
  process.exit(2);
}
if (!existsSync(fileURLToPath(CLI))) {
  console.error("packages/cli/dist is missing: run `npm run build` first");
  process.exit(2);
}
const { runTests } = (await import(CLI.href)) as typeof import("../packages/cli/dist/index.js");

const folders = readdirSync(SUITE, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();
const isCel = (folder: string) => CEL_SUFFIXES.some((s) => folder.endsWith(s));
const setOf = (folder: string) => (isCel(folder) ? "cel" : "classic");

const io: CliIo = {
  stdout: { write: () => true },
  stderr: { write: () => true },
  cwd: SUITE,
  env: process.env,
  isTTY: false,
};
const tty = process.stderr.isTTY === true && !process.env.CI;

const passes = (f: TestFileResult) => f.loadError === undefined && f.outcomes.every((o: LineOutcome) => o.ok);
const started = performance.now();
const rows: FolderCounts[] = [];
const failing: TestFileResult[] = [];
const reasons = new Map<string, number>();
for (const [i, folder] of folders.entries()) {
  if (tty) process.stderr.write(`\r\x1b[2K[${i + 1}/${folders.length}] ${folder}`);
  const run = await runTests([folder], { fileName: "kyverno-test.yaml" }, io);
  const outcomes = run.files.flatMap((f) => f.outcomes);
  rows.push({
    folder,
    tests: run.files.length,
    testsPassing: run.files.filter(passes).length,
    lines: outcomes.length,
    linesPassing: outcomes.filter((o) => o.ok).length,
  });
  failing.push(...run.files.filter((f) => !passes(f)));
  for (const o of outcomes) {
    if (o.ok) continue;
    const kind = o.reason.startsWith("Want ")
      ? "wrong result"
      : o.reason.startsWith("load error")
        ? "load error"
        : o.reason;
    reasons.set(kind, (reasons.get(kind) ?? 0) + 1);
  }
}
if (tty) process.stderr.write("\r\x1b[2K");

const sum = (of: readonly FolderCounts[]) =>
  of.reduce(
    (t, r) => ({
      tests: t.tests + r.tests,
      testsPassing: t.testsPassing + r.testsPassing,
      lines: t.lines + r.lines,
      linesPassing: t.linesPassing + r.linesPassing,
    }),
    { tests: 0, testsPassing: 0, lines: 0, linesPassing: 0 },
  );
const total = sum(rows);
const sets = {
  classic: sum(rows.filter((r) => setOf(r.folder) === "classic")),
  cel: sum(rows.filter((r) => setOf(r.folder) === "cel")),
};

const width = Math.max(6, ...rows.map((r) => r.folder.length));
const line = (name: string, tp: string, lp: string) =>
  `${name.padEnd(width)}  ${tp.padStart(13)}  ${lp.padStart(13)}`;
console.log(line("folder", "tests passing", "lines passing"));
for (const r of rows)
  console.log(line(r.folder, `${r.testsPassing}/${r.tests}`, `${r.linesPassing}/${r.lines}`));
for (const [name, s] of Object.entries(sets))
  console.log(line(`(${name})`, `${s.testsPassing}/${s.tests}`, `${s.linesPassing}/${s.lines}`));
console.log(line("total", `${total.testsPassing}/${total.tests}`, `${total.linesPassing}/${total.lines}`));

if (failing.length > 0) {
  console.log(`\nfailing tests (${failing.length}), with the first failing line:`);
  for (const f of failing) {
    const first = f.outcomes.find((o) => !o.ok);
    const where =
      first && first.policy !== "" ? ` [${first.policy}/${first.rule} ${first.kind}/${first.resource}]` : "";
    console.log(`  ${f.path}:${where} ${first?.reason ?? f.loadError ?? ""}`);
  }
  console.log("\nfailing lines by reason:");
  for (const [reason, n] of [...reasons].sort((a, b) => b[1] - a[1]))
    console.log(`  ${String(n).padStart(4)}  ${reason}`);
}
console.log(
  `\nRan ${total.tests} tests (${total.lines} result lines) in ${((performance.now() - started) / 1000).toFixed(1)}s: ` +
    `${total.testsPassing} tests and ${total.linesPassing} lines passing`,
);

const counts = (c: Counts): Counts => ({ testsPassing: c.testsPassing, linesPassing: c.linesPassing });
const current: Ratchet = {
  ...counts(total),
  sets: { classic: counts(sets.classic), cel: counts(sets.cel) },
};
if (update) {
  writeFileSync(RATCHET, `${JSON.stringify(current, null, 2)}\n`);
  console.log(`ratchet updated: ${JSON.stringify(current)}`);
}
if (check) {
  const ratchet = JSON.parse(readFileSync(RATCHET, "utf8")) as Ratchet;
  const pairs: Array<[string, Counts, Counts]> = [["total", current, ratchet]];
  for (const [name, want] of Object.entries(ratchet.sets ?? {}))
    pairs.push([name, current.sets?.[name] ?? { testsPassing: 0, linesPassing: 0 }, want]);
  const dropped = pairs.filter(
    ([, c, r]) => c.testsPassing < r.testsPassing || c.linesPassing < r.linesPassing,
  );
  const below = dropped.length > 0;
  const above = pairs.some(([, c, r]) => c.testsPassing > r.testsPassing || c.linesPassing > r.linesPassing);
  if (below) {
    for (const [name, c, r] of dropped)
      console.error(
        `conformance (${name}) dropped below the ratchet: ${c.testsPassing} tests / ${c.linesPassing} lines passing, ` +
          `ratchet ${r.testsPassing} / ${r.linesPassing} (scripts/conformance-ratchet.json)`,
      );
    process.exitCode = 1;
  } else if (above) {
    console.log(
      `conformance is above the ratchet (${ratchet.testsPassing} tests / ${ratchet.linesPassing} lines): ` +
        "raise it with `node scripts/conformance.ts --update` and commit scripts/conformance-ratchet.json",
    );
  } else {
    console.log("conformance matches the ratchet");
  }
}
