import type {
  CelPolicyException,
  KubeObject,
  PolicyException,
  RequestInfo,
  ValuesSpec,
} from "@kyverno-ts/api";
import { createCelEngine, createEngine } from "@kyverno-ts/engine";
import type { CliIo } from "../io.js";
import { clockOf, ExitCode } from "../io.js";
import {
  describeFiles,
  type LoadedPolicies,
  loadExceptionDocuments,
  loadPolicyDocuments,
  loadResourceDocuments,
  parseSources,
  type SourcedDocument,
  type Warnings,
} from "../load/documents.js";
import { type InputProblem, type InputResult, readInputs, type SourceFile } from "../load/files.js";
import {
  loadContextSource,
  loadUserInfoSource,
  loadValuesSource,
  type TestContext,
} from "../load/side-files.js";
import { createVariables, parseSetFlags } from "../load/variables.js";
import { countEvaluated, renderApplyTable, renderReport, renderViolations } from "../output/apply-output.js";
import { ApplyMessages, CommonMessages } from "../output/messages.js";
import { outputDocuments, renderMutations, writeOutputDocuments } from "../output/mutated-output.js";
import { reportProblems, reportWarnings } from "../output/problems.js";
import { createProgress, formatSeconds } from "../output/progress.js";
import { buildClusterReport, reportResults } from "../output/report.js";
import { celDataLoader, compileCelPolicies } from "../run/cel.js";
import { createPoolLoader } from "../run/cluster.js";
import { compilePolicies } from "../run/compile.js";
import { evaluateAll } from "../run/evaluate.js";
import { exceptionWarnings } from "../run/exceptions.js";
import type { Evaluated } from "../run/judge.js";
import type { ResultCounts } from "../run/report-result.js";

/** Flags of `kyverno-ts apply`, named as upstream's. */
export interface ApplyOptions {
  resource: string[];
  valuesFile?: string;
  /** A Context file (`--context-file`): objects and image metadata for CEL's libraries. */
  contextFile?: string;
  /** JSON payload files (`--json`), for ValidatingPolicies in JSON mode: any JSON, no kind needed. */
  json: string[];
  /** Parameter objects of Validating/MutatingAdmissionPolicies (`--parameter-resource`). */
  parameterResource: string[];
  set: string[];
  userinfo?: string;
  exception: string[];
  /** Also use PolicyExceptions found in the policy files (upstream's `--exceptions-within-policies`). */
  exceptionsWithinPolicies: boolean;
  policyReport: boolean;
  auditWarn: boolean;
  detailedResults: boolean;
  table: boolean;
  stdin: boolean;
  /** Machine output: the report alone on stdout, as JSON or YAML (`-o json|yaml`). */
  output?: "json" | "yaml";
  /** Where mutated and generated resources are written (`-o <path>`): a directory or one YAML file. */
  outputPath?: string;
  /** Namespaces PolicyExceptions are accepted from (wildcards); empty for all. */
  exceptionNamespace: string[];
  /** Files or folders of mutate-existing targets (`--target-resource`, `--target-resources`). */
  targetResource: string[];
  /** Files or folders of objects that exist in the cluster: clone sources (`--cluster-resource`). */
  clusterResource: string[];
  /** Format of the `--policy-report` block. */
  outputFormat: "json" | "yaml";
  warnExitCode: number;
  warnNoPass: boolean;
}

/** Everything `apply` reads, loaded. */
interface ApplyInputs {
  policies: LoadedPolicies;
  /** What each policy file held (for the error when none held a policy). */
  policyFiles: Array<{ file: string; held: string | undefined }>;
  resources: KubeObject[];
  values: ValuesSpec | undefined;
  userInfo: RequestInfo | undefined;
  exceptions: PolicyException[];
  /** policies.kyverno.io PolicyExceptions (`-e` files, and the policy files with `--exceptions-with-policies`). */
  celExceptions: CelPolicyException[];
  /** The context file's objects and image metadata. */
  context: TestContext;
  /** `--json` payloads. */
  payloads: KubeObject[];
  /** `--parameter-resource` objects. */
  parameters: KubeObject[];
  targets: KubeObject[];
  cluster: KubeObject[];
}

async function readOne<T>(
  path: string | undefined,
  io: CliIo,
  load: (s: SourceFile, w: Warnings) => InputResult<T>,
  warnings: Warnings,
): Promise<InputResult<T | undefined>> {
  if (path === undefined) return { ok: true, value: undefined };
  const read = await readInputs([path], io);
  if (!read.ok) return read;
  const source = read.value[0];
  return source ? load(source, warnings) : { ok: true, value: undefined };
}

/** JSON payloads (`--json`): every object document, whatever it holds. */
function loadPayloadDocuments(documents: readonly SourcedDocument[]): InputResult<KubeObject[]> {
  const out: KubeObject[] = [];
  const problems: InputProblem[] = [];
  for (const doc of documents) {
    const v = doc.value;
    if (typeof v === "object" && v !== null && !Array.isArray(v)) out.push(v as KubeObject);
    else
      problems.push({
        code: "wrong-type",
        file: doc.file,
        document: doc.document,
        path: "",
        message: "a JSON payload must be an object",
      });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: out };
}

async function readDocuments(paths: readonly string[], io: CliIo, warnings: Warnings) {
  const files = await readInputs(paths, io);
  return files.ok ? parseSources(files.value, warnings) : files;
}

/** Reads and loads every input of `apply`, collecting the problems of all of them. */
async function loadApplyInputs(
  policyPaths: readonly string[],
  resourcePaths: readonly string[],
  options: ApplyOptions,
  io: CliIo,
  warnings: Warnings,
): Promise<InputResult<ApplyInputs>> {
  const policyFiles = await readInputs(policyPaths, io);
  const policyDocs = policyFiles.ok ? parseSources(policyFiles.value, warnings) : policyFiles;
  const resourceDocs = await readDocuments(resourcePaths, io, warnings);
  const exceptionDocs = await readDocuments(options.exception, io, warnings);
  const targetDocs = await readDocuments(options.targetResource, io, warnings);
  const clusterDocs = await readDocuments(options.clusterResource, io, warnings);
  const policies = policyDocs.ok ? loadPolicyDocuments(policyDocs.value, warnings) : policyDocs;
  const resources = resourceDocs.ok ? loadResourceDocuments(resourceDocs.value) : resourceDocs;
  const exceptions = exceptionDocs.ok ? loadExceptionDocuments(exceptionDocs.value, warnings) : exceptionDocs;
  const targets = targetDocs.ok ? loadResourceDocuments(targetDocs.value) : targetDocs;
  const cluster = clusterDocs.ok ? loadResourceDocuments(clusterDocs.value) : clusterDocs;
  const values = await readOne<ValuesSpec>(options.valuesFile, io, loadValuesSource, warnings);
  const userInfo = await readOne<RequestInfo>(options.userinfo, io, loadUserInfoSource, warnings);
  const context = await readOne<TestContext>(options.contextFile, io, loadContextSource, warnings);
  const payloadDocs = await readDocuments(options.json, io, warnings);
  const payloads = payloadDocs.ok ? loadPayloadDocuments(payloadDocs.value) : payloadDocs;
  const parameterDocs = await readDocuments(options.parameterResource, io, warnings);
  const parameters = parameterDocs.ok ? loadResourceDocuments(parameterDocs.value) : parameterDocs;
  if (
    policies.ok &&
    resources.ok &&
    exceptions.ok &&
    values.ok &&
    userInfo.ok &&
    context.ok &&
    payloads.ok &&
    parameters.ok &&
    targets.ok &&
    cluster.ok
  ) {
    const extra = options.exceptionsWithinPolicies ? policies.value.exceptions : [];
    const celExtra = options.exceptionsWithinPolicies ? policies.value.celExceptions : [];
    return {
      ok: true,
      value: {
        policies: policies.value,
        policyFiles:
          policyFiles.ok && policyDocs.ok
            ? describeFiles(
                policyFiles.value.map((f) => f.display),
                policyDocs.value,
              )
            : [],
        resources: resources.value,
        values: values.value,
        userInfo: userInfo.value,
        exceptions: [...exceptions.value.classic, ...extra],
        celExceptions: [...exceptions.value.cel, ...celExtra],
        context: context.value ?? { resources: [], images: [] },
        payloads: payloads.value,
        parameters: parameters.value,
        targets: targets.value,
        cluster: cluster.value,
      },
    };
  }
  const problems: InputProblem[] = [];
  for (const r of [
    policies,
    resources,
    exceptions,
    values,
    userInfo,
    context,
    payloads,
    parameters,
    targets,
    cluster,
  ])
    if (!r.ok) problems.push(...r.problems);
  return { ok: false, problems };
}

/** Prints the results: the report alone (`-o`), the report block (`-p`), a table (`-t`) or the violations. */
function printResults(
  evaluated: readonly Evaluated[],
  counts: ResultCounts,
  options: ApplyOptions,
  io: CliIo,
): void {
  const out = (text: string) => io.stdout.write(text);
  const report = () => buildClusterReport(reportResults(evaluated, options.auditWarn));
  if (options.output !== undefined) {
    out(renderReport(report(), options.output));
  } else if (options.policyReport) {
    // As upstream: with --policy-report the report replaces the violation list and the counts.
    out(`${ApplyMessages.divider}\n${ApplyMessages.policyReport}\n${ApplyMessages.divider}\n`);
    out(renderReport(report(), options.outputFormat));
  } else {
    if (options.table) out(`\n${renderApplyTable(evaluated, options.auditWarn, options.detailedResults)}\n`);
    else {
      const violations = renderViolations(evaluated, options.auditWarn);
      if (violations !== "") out(`${violations}\n`);
    }
    out(`\n${ApplyMessages.summary(counts)}\n`);
  }
}

/** Writes mutated and generated resources to `-o <path>`; returns an exit status only on an I/O error. */
function writeOutputs(evaluated: readonly Evaluated[], path: string, io: CliIo): number | undefined {
  const docs = outputDocuments(evaluated);
  if (docs.length === 0) {
    io.stdout.write(`${ApplyMessages.nothingWritten(path)}\n`);
    return undefined;
  }
  try {
    writeOutputDocuments(io.cwd, path, docs);
  } catch (error) {
    return reportProblems(io, [{ file: path, message: (error as Error).message }]);
  }
  io.stdout.write(`${ApplyMessages.written(docs.length, path)}\n`);
  return undefined;
}

/** Upstream's exit status: 1 on failures or errors, `--warn-exit-code` on warnings (or no pass), else 0. */
function exitStatus(counts: ResultCounts, options: ApplyOptions, io: CliIo): number {
  if (counts.fail > 0 || counts.error > 0) return ExitCode.Failure;
  if (counts.warn > 0 && options.warnExitCode !== 0) {
    io.stderr.write(`${ApplyMessages.warnExit(options.warnExitCode)}\n`);
    return options.warnExitCode;
  }
  if (counts.pass === 0 && options.warnNoPass) {
    io.stderr.write(`${ApplyMessages.noPass}\n`);
    return options.warnExitCode;
  }
  return ExitCode.Ok;
}

/**
 * Runs `apply`: loads policies and resources, evaluates every policy on every resource (mutate,
 * mutate-existing, validate on the mutated resource, generate), prints the mutated and generated
 * resources (or writes them to `-o <path>`), then upstream's summary (or a table, or a policy
 * report) and returns the exit status: 2 for input errors, 1 when any rule failed or errored, the
 * `--warn-exit-code` on warnings, else 0.
 */
export async function runApply(
  policyPaths: readonly string[],
  options: ApplyOptions,
  io: CliIo,
): Promise<number> {
  const now = clockOf(io);
  const started = now();
  const fail = (message: string) => reportProblems(io, [{ file: "apply", message }]);
  if (policyPaths.length === 0) return fail(ApplyMessages.noPolicies);
  const resourcePaths = [...options.resource];
  if (options.stdin && !resourcePaths.includes("-")) resourcePaths.push("-");
  if (resourcePaths.length === 0 && options.json.length === 0) return fail(ApplyMessages.noResources);
  if (policyPaths.includes("-") && resourcePaths.includes("-")) return fail(CommonMessages.stdinTwice);
  if (options.outputPath === "") return fail(ApplyMessages.emptyOutput);
  const set = parseSetFlags(options.set);
  if (!set.ok) return fail(set.error);

  const warnings: Warnings = [];
  const inputs = await loadApplyInputs(policyPaths, resourcePaths, options, io, warnings);
  reportWarnings(io, warnings);
  if (!inputs.ok) return reportProblems(io, inputs.problems);
  const { policies, values, userInfo, exceptions, celExceptions, targets, cluster, context, parameters } =
    inputs.value;
  // JSON payloads are evaluated like resources; only JSON-mode policies match them.
  const resources = [...inputs.value.resources, ...inputs.value.payloads];
  for (const s of policies.skipped)
    io.stderr.write(`Warning: ${ApplyMessages.skippedKind(s.file, s.kind)}\n`);
  const inPolicies = policies.exceptions.length + policies.celExceptions.length;
  if (!options.exceptionsWithinPolicies && inPolicies > 0) {
    io.stderr.write(`Warning: ${ApplyMessages.exceptionsInPolicies(inPolicies)}\n`);
  }
  if (policies.policies.length === 0 && policies.cel.length === 0) {
    const skipped = new Set(policies.skipped.map((s) => s.file));
    const held = inputs.value.policyFiles.filter((f) => !skipped.has(f.file));
    if (held.length === 0) return fail(ApplyMessages.noPolicies);
    const shown = held.slice(0, 5).map((f) => ({ file: f.file, message: ApplyMessages.noPolicyIn(f.held) }));
    const more = held.length - shown.length;
    if (more > 0) shown.push({ file: "apply", message: ApplyMessages.moreWithoutPolicy(more) });
    return reportProblems(io, shown);
  }

  const variables = createVariables(values, set.value);
  const accepted = options.exceptionNamespace.length > 0 ? options.exceptionNamespace : ["*"];
  const pool = createPoolLoader({ sources: [...resources, ...cluster], targets: [...targets, ...cluster] });
  const engine = createEngine({
    namespaceLabels: (ns) => variables.namespaceLabels(ns),
    contextLoader: pool.loader,
    exceptionNamespaces: accepted,
  });
  const compiled = compilePolicies(engine, policies.policies);
  if (!compiled.ok) return reportProblems(io, compiled.problems);
  const celEngine = createCelEngine({
    namespaceLabels: (ns) => variables.namespaceLabels(ns),
    namespaceObject: (ns) => values?.namespaces?.find((n) => n.metadata?.name === ns),
    contextLoader: {
      ...pool.loader,
      ...celDataLoader({
        resources: [...context.resources, ...resources, ...cluster, ...targets, ...parameters],
        images: context.images,
      }),
    },
  });
  const celCompiled = compileCelPolicies(celEngine, policies.cel, celExceptions, policies.bindings);
  if (!celCompiled.ok) return reportProblems(io, celCompiled.problems);
  for (const w of exceptionWarnings(exceptions, policies.policies, accepted))
    io.stderr.write(`Warning: ${w}\n`);

  if (options.output === undefined) {
    const rules = compiled.value.reduce((n, p) => n + p.ruleNames.length, 0) + celCompiled.value.length;
    const exceptionCount = exceptions.length + celExceptions.length;
    io.stdout.write(`${ApplyMessages.applying(rules, resources.length, exceptionCount)}\n`);
  }
  const progress = createProgress(io, now);
  const evaluated = evaluateAll({
    engine,
    policies: compiled.value,
    resources,
    variables,
    ...(userInfo ? { requestInfo: userInfo } : {}),
    exceptions,
    pool,
    cel: { engine: celEngine, policies: celCompiled.value },
    onProgress: (done, total) => progress.update(done, total, "resources evaluated"),
  });
  progress.clear();

  if (options.outputPath !== undefined) {
    const written = writeOutputs(evaluated, options.outputPath, io);
    if (written !== undefined) return written;
  } else if (options.output === undefined) {
    io.stdout.write(renderMutations(evaluated, options.stdin));
  }

  const counts = countEvaluated(evaluated, options.auditWarn);
  printResults(evaluated, counts, options, io);
  io.stderr.write(`${ApplyMessages.timing(resources.length, formatSeconds(now() - started))}\n`);
  return exitStatus(counts, options, io);
}
