import { dirname } from "node:path";
import {
  type KubeObject,
  type LoadError,
  loadTest,
  type RequestInfo,
  systemClock,
  type TestFile,
  type ValuesSpec,
} from "@kyverno-ts/api";
import { createCelEngine, createEngine, createJmespath } from "@kyverno-ts/engine";
import type { CliIo } from "../io.js";
import { clockOf } from "../io.js";
import {
  type LoadedExceptions,
  type LoadedPolicies,
  loadExceptionDocuments,
  loadPolicyDocuments,
  loadResourceDocuments,
  parseSources,
  resourceKey,
  type Warnings,
} from "../load/documents.js";
import {
  formatProblem,
  type InputProblem,
  type InputResult,
  isUrl,
  readInputs,
  resolveTestPath,
  type SourceFile,
} from "../load/files.js";
import {
  loadContextSource,
  loadUserInfoSource,
  loadValuesSource,
  type TestContext,
} from "../load/side-files.js";
import { findTestFiles, testDisplay } from "../load/test-files.js";
import { createVariables } from "../load/variables.js";
import { ApplyMessages, InputMessages, Reasons, TestMessages } from "../output/messages.js";
import { celDataLoader, compileCelPolicies, globalContextOf } from "./cel.js";
import { createPoolLoader } from "./cluster.js";
import { compilePolicies } from "./compile.js";
import { evaluateAll } from "./evaluate.js";
import { exceptionWarnings } from "./exceptions.js";
import { type ExpectedFile, judgeLine, type LineOutcome } from "./judge.js";
import { SELECT_ALL, selects, type TestCaseSelector } from "./selector.js";

/** Options of `runTests`. */
export interface TestRunOptions {
  /** Test file name searched in directories (default `kyverno-test.yaml`). */
  fileName: string;
  selector?: TestCaseSelector;
  /** Called after each test file, e.g. to draw progress. */
  onFile?: (done: number, total: number, file: TestFileResult) => void;
}

/** Everything about one `kyverno-test.yaml`: its judged lines, or why it could not run. */
export interface TestFileResult {
  /** Path as displayed (relative to the working directory when inside it). */
  path: string;
  name: string;
  outcomes: LineOutcome[];
  /** Set when the test could not be loaded or compiled; the test then counts as failed. */
  loadError?: string;
  /** Non-fatal notes shown under the test (warnings, skipped kinds, duplicates). */
  notes: string[];
  policies: number;
  resources: number;
  exceptions: number;
}

/** Result of running tests: per-file results plus problems finding them. */
export interface TestRun {
  files: TestFileResult[];
  /** Problems locating test files (missing path, URL): input errors. */
  problems: InputProblem[];
  durationMs: number;
}

async function readSide<T>(
  path: string | undefined,
  testDir: string,
  io: CliIo,
  load: (s: SourceFile, w: Warnings) => InputResult<T>,
  warnings: Warnings,
): Promise<InputResult<T | undefined>> {
  if (path === undefined || path === "") return { ok: true, value: undefined };
  const read = await readInputs([isUrl(path) ? path : resolveTestPath(testDir, path)], io);
  if (!read.ok) return read;
  const source = read.value[0];
  return source ? load(source, warnings) : { ok: true, value: undefined };
}

async function readList(paths: readonly string[] | undefined, testDir: string, io: CliIo) {
  return readInputs(
    (paths ?? []).map((p) => (isUrl(p) ? p : resolveTestPath(testDir, p))),
    io,
  );
}

/** Joins problems for a one-line reason: the first three, each cut to 300 characters, then a count of the rest. */
function summarizeProblems(problems: readonly InputProblem[]): string {
  const shown = problems.slice(0, 3).map((p) => {
    const text = formatProblem(p);
    return text.length > 300 ? `${text.slice(0, 300)}…` : text;
  });
  const rest = problems.length - shown.length;
  return InputMessages.andMore(shown, rest);
}

/** A failing outcome not tied to a result line (load errors, unsupported checks). */
function unjudged(path: string): LineOutcome {
  const empty = { policy: "", rule: "", resource: "", kind: "", expected: "" };
  return { test: path, ...empty, actual: "error", ok: false, reason: "", message: "" };
}

function failed(
  path: string,
  name: string,
  problems: readonly InputProblem[],
  notes: string[],
): TestFileResult {
  const loadError = summarizeProblems(problems);
  const outcome = { ...unjudged(path), reason: Reasons.loadError(loadError), message: loadError };
  return { path, name, notes, policies: 0, resources: 0, exceptions: 0, loadError, outcomes: [outcome] };
}

/** A loaded test file. */
interface LoadedTest {
  test: TestFile;
  /** `clusterResources`: files of objects that exist in the cluster (clone sources). */
  clusterResources: string[];
}

function loadTestFile(source: SourceFile, warnings: Warnings): InputResult<LoadedTest> {
  const parsed = parseSources([source], warnings);
  if (!parsed.ok) return parsed;
  const doc = parsed.value[0];
  if (!doc) {
    const e: LoadError = {
      code: "missing-field",
      file: source.display,
      path: "",
      message: InputMessages.emptyFile("test"),
    };
    return { ok: false, problems: [e] };
  }
  const loaded = loadTest(doc.value, { file: doc.file, document: doc.document, locate: doc.locate });
  if (!loaded.ok) return { ok: false, problems: loaded.errors };
  warnings.push(...loaded.warnings);
  return { ok: true, value: { test: loaded.value, clusterResources: loaded.value.clusterResources } };
}

/** Everything a test file points at, loaded. */
interface TestInputs {
  values: ValuesSpec | undefined;
  userInfo: RequestInfo | undefined;
  policies: LoadedPolicies;
  resources: KubeObject[];
  exceptions: LoadedExceptions;
  /** The context file (`context`): objects and image metadata for CEL's libraries. */
  context: TestContext;
  /** Objects of each global context entry's `resourceFiles`, by entry name. */
  globalContextFiles: Map<string, KubeObject[]>;
  /** Mutate-existing targets (`targetResources`). */
  targets: KubeObject[];
  /** Clone sources: `clusterResources` and every line's `cloneSourceResource`. */
  cluster: KubeObject[];
  /** Resources of the lines' `patchedResources` / `generatedResource` files, by the path as written. */
  expected: Map<string, ExpectedFile>;
}

/** Paths of the expected-resource files the result lines name. */
function expectedPaths(test: TestFile): string[] {
  const paths = new Set<string>();
  for (const r of test.results) {
    const patched = r.patchedResources ?? r.patchedResource;
    if (patched) paths.add(patched);
    if (r.generatedResource) paths.add(r.generatedResource);
  }
  return [...paths];
}

/** Loads each expected-resources file on its own: a bad file fails only the lines that use it. */
async function loadExpectedFiles(
  paths: readonly string[],
  testDir: string,
  io: CliIo,
  warnings: Warnings,
): Promise<Map<string, ExpectedFile>> {
  const out = new Map<string, ExpectedFile>();
  for (const path of paths) {
    const files = await readList([path], testDir, io);
    const docs = files.ok ? parseSources(files.value, warnings) : files;
    const loaded = docs.ok ? loadResourceDocuments(docs.value) : docs;
    out.set(path, loaded.ok ? loaded : { ok: false, error: summarizeProblems(loaded.problems) });
  }
  return out;
}

/** Loads the files a test names (relative to its folder), collecting every problem of every file. */
async function loadTestInputs(
  { test, clusterResources }: LoadedTest,
  testDir: string,
  io: CliIo,
  warnings: Warnings,
): Promise<InputResult<TestInputs>> {
  const values = test.values
    ? ({ ok: true, value: test.values } as const)
    : await readSide<ValuesSpec>(test.variables, testDir, io, loadValuesSource, warnings);
  const userInfo = await readSide<RequestInfo>(test.userinfo, testDir, io, loadUserInfoSource, warnings);
  const context = await readSide<TestContext>(test.context, testDir, io, loadContextSource, warnings);
  const parse = async (paths: readonly string[] | undefined) => {
    const files = await readList(paths, testDir, io);
    return files.ok ? parseSources(files.value, warnings) : files;
  };
  const objects = async (paths: readonly string[]) => {
    const docs = await parse(paths);
    return docs.ok ? loadResourceDocuments(docs.value) : docs;
  };
  const cloneSources = test.results.flatMap((r) => (r.cloneSourceResource ? [r.cloneSourceResource] : []));
  const [policyDocs, resources, exceptionDocs, targets, cluster] = [
    await parse(test.policies),
    await objects(test.resources),
    await parse(test.exceptions),
    await objects(test.targetResources),
    await objects([...new Set([...clusterResources, ...cloneSources])]),
  ];
  const globalContextFiles = new Map<string, KubeObject[]>();
  const globalFileProblems: InputProblem[] = [];
  for (const entry of test.globalContextEntries) {
    if ((entry.resourceFiles ?? []).length === 0) continue;
    const loaded = await objects(entry.resourceFiles ?? []);
    if (loaded.ok) globalContextFiles.set(entry.name, loaded.value);
    else globalFileProblems.push(...loaded.problems);
  }
  const policies = policyDocs.ok ? loadPolicyDocuments(policyDocs.value, warnings) : policyDocs;
  const exceptions = exceptionDocs.ok ? loadExceptionDocuments(exceptionDocs.value, warnings) : exceptionDocs;
  if (
    values.ok &&
    userInfo.ok &&
    context.ok &&
    policies.ok &&
    resources.ok &&
    exceptions.ok &&
    targets.ok &&
    cluster.ok &&
    globalFileProblems.length === 0
  ) {
    const value = {
      values: values.value,
      userInfo: userInfo.value,
      policies: policies.value,
      resources: resources.value,
      exceptions: exceptions.value,
      context: context.value ?? { resources: [], images: [] },
      globalContextFiles,
      targets: targets.value,
      cluster: cluster.value,
      expected: await loadExpectedFiles(expectedPaths(test), testDir, io, warnings),
    };
    return { ok: true, value };
  }
  const problems: InputProblem[] = [...globalFileProblems];
  for (const r of [values, userInfo, context, policies, resources, exceptions, targets, cluster])
    if (!r.ok) problems.push(...r.problems);
  return { ok: false, problems };
}

/**
 * Runs one test file like `kyverno test`: loads its policies, resources, exceptions, values and
 * user info (paths relative to the test's folder), evaluates every policy on every resource and
 * judges each result line. Never throws for bad input: problems become the result's `loadError`.
 */
export async function runTestFile(
  absolute: string,
  io: CliIo,
  selector: TestCaseSelector = SELECT_ALL,
): Promise<TestFileResult> {
  const path = testDisplay(io, absolute);
  const warnings: Warnings = [];
  const notes: string[] = [];
  const read = await readInputs([absolute], io);
  const source = read.ok ? read.value[0] : undefined;
  if (!read.ok || !source) return failed(path, "", read.ok ? [] : read.problems, notes);
  const spec = loadTestFile(source, warnings);
  if (!spec.ok) return failed(path, "", spec.problems, notes);
  const test = spec.value.test;
  const name = test.metadata?.name ?? test.name ?? "";

  const inputs = await loadTestInputs(spec.value, dirname(absolute), io, warnings);
  for (const w of warnings) notes.push(`Warning: ${formatProblem(w)}`);
  if (!inputs.ok) return failed(path, name, inputs.problems, notes);
  const { values, userInfo, policies, resources, targets, cluster, expected, context, globalContextFiles } =
    inputs.value;
  const exceptions = inputs.value.exceptions.classic;
  const celExceptions = [...inputs.value.exceptions.cel, ...policies.celExceptions];
  for (const s of policies.skipped) notes.push(`Warning: ${ApplyMessages.skippedKind(s.file, s.kind)}`);

  const unique = new Map<string, KubeObject>();
  for (const r of resources) {
    const key = resourceKey(r);
    if (unique.has(key)) notes.push(TestMessages.duplicateResource(key));
    else unique.set(key, r);
  }
  if (policies.exceptions.length > 0)
    notes.push(TestMessages.exceptionsInPolicies(policies.exceptions.length));

  const variables = createVariables(values);
  // Clone sources: the test's resources and cluster objects (`clusterResources`, `cloneSourceResource`);
  // mutate-existing targets: `targetResources` and the cluster objects.
  const pool = createPoolLoader({
    sources: [...unique.values(), ...cluster],
    targets: [...targets, ...cluster],
  });
  const engine = createEngine({
    namespaceLabels: (ns) => variables.namespaceLabels(ns),
    contextLoader: pool.loader,
  });
  const compiled = compilePolicies(engine, policies.policies);
  if (!compiled.ok) return failed(path, name, compiled.problems, notes);
  const celEngine = createCelEngine({
    namespaceLabels: (ns) => variables.namespaceLabels(ns),
    namespaceObject: (ns) => values?.namespaces?.find((n) => n.metadata?.name === ns),
    contextLoader: {
      ...pool.loader,
      ...celDataLoader({
        resources: [...context.resources, ...unique.values(), ...cluster, ...targets],
        images: context.images,
        apiCallResponses: test.apiCallResponses,
        globalContext: globalContextOf(
          test.globalContextEntries,
          (entry) => globalContextFiles.get(entry.name) ?? [],
          createJmespath({ clock: systemClock }),
        ),
      }),
    },
  });
  const celCompiled = compileCelPolicies(celEngine, policies.cel, celExceptions, policies.bindings);
  if (!celCompiled.ok) return failed(path, name, celCompiled.problems, notes);
  for (const w of exceptionWarnings(exceptions, policies.policies, ["*"])) notes.push(`Warning: ${w}`);
  const evaluated = evaluateAll({
    engine,
    policies: compiled.value,
    resources: [...unique.values()],
    variables,
    ...(userInfo ? { requestInfo: userInfo } : {}),
    exceptions,
    pool,
    cel: { engine: celEngine, policies: celCompiled.value },
  });
  const files = (p: string): ExpectedFile =>
    expected.get(p) ?? { ok: false, error: TestMessages.noFileReader(p) };
  const outcomes: LineOutcome[] = [];
  for (const line of test.results ?? []) {
    for (const o of judgeLine(path, line, evaluated, { files })) {
      if (selects(selector, o.policy, o.rule, o.resource)) outcomes.push(o);
    }
  }
  for (const _check of test.checks ?? []) {
    outcomes.push({
      ...unjudged(path),
      actual: "unsupported",
      reason: Reasons.checks,
      message: Reasons.checks,
    });
  }
  return {
    path,
    name,
    outcomes,
    notes,
    policies: compiled.value.length + celCompiled.value.length,
    resources: unique.size,
    exceptions: exceptions.length + celExceptions.length,
  };
}

/** Finds the test files under `paths` and runs each; a test that fails to load does not stop the run. */
export async function runTests(
  paths: readonly string[],
  options: TestRunOptions,
  io: CliIo,
): Promise<TestRun> {
  const now = clockOf(io);
  const started = now();
  const found = findTestFiles(paths, options.fileName, io);
  if (!found.ok) return { files: [], problems: found.problems, durationMs: now() - started };
  const files: TestFileResult[] = [];
  for (const file of found.value) {
    let result: TestFileResult;
    try {
      result = await runTestFile(file, io, options.selector);
    } catch (error) {
      const message = InputMessages.internal("test runner", error);
      result = failed(testDisplay(io, file), "", [{ file: testDisplay(io, file), message }], []);
    }
    files.push(result);
    options.onFile?.(files.length, found.value.length, result);
  }
  return { files, problems: [], durationMs: now() - started };
}
