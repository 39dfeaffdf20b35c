import type { KubeObject, PolicyException, RequestInfo, ValuesSpec } from "@kyverno-ts/api";
import { createEngine } from "@kyverno-ts/engine";
import type { CliIo } from "../io.js";
import { clockOf, ExitCode } from "../io.js";
import {
  type LoadedPolicies,
  loadExceptionDocuments,
  loadPolicyDocuments,
  loadResourceDocuments,
  parseSources,
  type Warnings,
} from "../load/documents.js";
import { type InputProblem, type InputResult, readInputs, type SourceFile } from "../load/files.js";
import { loadUserInfoSource, loadValuesSource } from "../load/side-files.js";
import { createVariables, parseSetFlags } from "../load/variables.js";
import { countEvaluated, renderApplyTable, renderReport, renderViolations } from "../output/apply-output.js";
import { ApplyMessages, CommonMessages } from "../output/messages.js";
import { reportProblems, reportWarnings } from "../output/problems.js";
import { createProgress, formatSeconds } from "../output/progress.js";
import { buildClusterReport, reportResults } from "../output/report.js";
import { compilePolicies } from "../run/compile.js";
import { evaluateAll } from "../run/evaluate.js";
import type { Evaluated } from "../run/judge.js";
import type { ResultCounts } from "../run/report-result.js";

/** Flags of `kyverno-ts apply`, named as upstream's. */
export interface ApplyOptions {
  resource: string[];
  valuesFile?: string;
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
  /** Machine output: the report alone on stdout, as JSON or YAML. */
  output?: "json" | "yaml";
  /** Format of the `--policy-report` block. */
  outputFormat: "json" | "yaml";
  warnExitCode: number;
  warnNoPass: boolean;
}

/** Everything `apply` reads, loaded. */
interface ApplyInputs {
  policies: LoadedPolicies;
  resources: KubeObject[];
  values: ValuesSpec | undefined;
  userInfo: RequestInfo | undefined;
  exceptions: PolicyException[];
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
  const policyDocs = await readDocuments(policyPaths, io, warnings);
  const resourceDocs = await readDocuments(resourcePaths, io, warnings);
  const exceptionDocs = await readDocuments(options.exception, io, warnings);
  const policies = policyDocs.ok ? loadPolicyDocuments(policyDocs.value, warnings) : policyDocs;
  const resources = resourceDocs.ok ? loadResourceDocuments(resourceDocs.value) : resourceDocs;
  const exceptions = exceptionDocs.ok ? loadExceptionDocuments(exceptionDocs.value, warnings) : exceptionDocs;
  const values = await readOne<ValuesSpec>(options.valuesFile, io, loadValuesSource, warnings);
  const userInfo = await readOne<RequestInfo>(options.userinfo, io, loadUserInfoSource, warnings);
  if (policies.ok && resources.ok && exceptions.ok && values.ok && userInfo.ok) {
    const extra = options.exceptionsWithinPolicies ? policies.value.exceptions : [];
    return {
      ok: true,
      value: {
        policies: policies.value,
        resources: resources.value,
        values: values.value,
        userInfo: userInfo.value,
        exceptions: [...exceptions.value, ...extra],
      },
    };
  }
  const problems: InputProblem[] = [];
  for (const r of [policies, resources, exceptions, values, userInfo])
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
 * Runs `apply`: loads policies and resources, evaluates every policy on every resource, prints
 * upstream's summary (or a table, or a policy report) and returns the exit status: 2 for input
 * errors, 1 when any rule failed or errored, the `--warn-exit-code` on warnings, else 0.
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
  if (resourcePaths.length === 0) return fail(ApplyMessages.noResources);
  if (policyPaths.includes("-") && resourcePaths.includes("-")) return fail(CommonMessages.stdinTwice);
  const set = parseSetFlags(options.set);
  if (!set.ok) return fail(set.error);

  const warnings: Warnings = [];
  const inputs = await loadApplyInputs(policyPaths, resourcePaths, options, io, warnings);
  reportWarnings(io, warnings);
  if (!inputs.ok) return reportProblems(io, inputs.problems);
  const { policies, resources, values, userInfo, exceptions } = inputs.value;
  for (const s of policies.skipped)
    io.stderr.write(`Warning: ${ApplyMessages.skippedKind(s.file, s.kind)}\n`);
  if (!options.exceptionsWithinPolicies && policies.exceptions.length > 0) {
    io.stderr.write(`Warning: ${ApplyMessages.exceptionsInPolicies(policies.exceptions.length)}\n`);
  }
  if (policies.policies.length === 0) return fail(ApplyMessages.noPolicies);

  const variables = createVariables(values, set.value);
  const engine = createEngine({ namespaceLabels: (ns) => variables.namespaceLabels(ns) });
  const compiled = compilePolicies(engine, policies.policies);
  if (!compiled.ok) return reportProblems(io, compiled.problems);

  if (options.output === undefined) {
    const rules = compiled.value.reduce((n, p) => n + p.ruleNames.length, 0);
    io.stdout.write(`${ApplyMessages.applying(rules, resources.length, exceptions.length)}\n`);
  }
  const progress = createProgress(io, now);
  const evaluated = evaluateAll({
    engine,
    policies: compiled.value,
    resources,
    variables,
    ...(userInfo ? { requestInfo: userInfo } : {}),
    exceptions,
    onProgress: (done, total) => progress.update(done, total, "resources evaluated"),
  });
  progress.clear();

  const counts = countEvaluated(evaluated, options.auditWarn);
  printResults(evaluated, counts, options, io);
  io.stderr.write(`${ApplyMessages.timing(resources.length, formatSeconds(now() - started))}\n`);
  return exitStatus(counts, options, io);
}
