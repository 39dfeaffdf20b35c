import type { RequestInfo, ValuesSpec } from "@kyverno-ts/api";
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
import { type InputResult, readInputs, type SourceFile } from "../load/files.js";
import { loadUserInfoSource, loadValuesSource } from "../load/side-files.js";
import { createVariables, parseSetFlags } from "../load/variables.js";
import { countEvaluated, renderApplyTable, renderReport, renderViolations } from "../output/apply-output.js";
import { ApplyMessages, CommonMessages } from "../output/messages.js";
import { reportProblems, reportWarnings } from "../output/problems.js";
import { createProgress, formatSeconds } from "../output/progress.js";
import { buildClusterReport, reportResults } from "../output/report.js";
import { compilePolicies } from "../run/compile.js";
import { evaluateAll } from "../run/evaluate.js";

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
  const policyFiles = await readInputs(policyPaths, io);
  const resourceFiles = await readInputs(resourcePaths, io);
  const problems = [
    ...(policyFiles.ok ? [] : policyFiles.problems),
    ...(resourceFiles.ok ? [] : resourceFiles.problems),
  ];
  if (!policyFiles.ok || !resourceFiles.ok) return reportProblems(io, problems);

  const policyDocs = parseSources(policyFiles.value, warnings);
  const resourceDocs = parseSources(resourceFiles.value, warnings);
  const loaded: InputResult<LoadedPolicies> = policyDocs.ok
    ? loadPolicyDocuments(policyDocs.value, warnings)
    : policyDocs;
  const resources = resourceDocs.ok ? loadResourceDocuments(resourceDocs.value) : resourceDocs;
  const values = await readOne<ValuesSpec>(options.valuesFile, io, loadValuesSource, warnings);
  const userInfo = await readOne<RequestInfo>(options.userinfo, io, loadUserInfoSource, warnings);
  const exceptionFiles = await readInputs(options.exception, io);
  const exceptionDocs = exceptionFiles.ok ? parseSources(exceptionFiles.value, warnings) : exceptionFiles;
  const exceptions = exceptionDocs.ok ? loadExceptionDocuments(exceptionDocs.value, warnings) : exceptionDocs;
  reportWarnings(io, warnings);
  for (const r of [loaded, resources, values, userInfo, exceptions]) if (!r.ok) problems.push(...r.problems);
  if (!loaded.ok || !resources.ok || !values.ok || !userInfo.ok || !exceptions.ok)
    return reportProblems(io, problems);
  for (const s of loaded.value.skipped)
    io.stderr.write(`Warning: ${ApplyMessages.skippedKind(s.file, s.kind)}\n`);
  if (loaded.value.policies.length === 0) return fail(ApplyMessages.noPolicies);

  const variables = createVariables(values.value, set.value);
  const engine = createEngine({ namespaceLabels: (ns) => variables.namespaceLabels(ns) });
  const compiled = compilePolicies(engine, loaded.value.policies);
  if (!compiled.ok) return reportProblems(io, compiled.problems);

  const machine = options.output !== undefined;
  const out = (text: string) => io.stdout.write(text);
  const ruleCount = compiled.value.reduce((n, p) => n + p.ruleNames.length, 0);
  const allExceptions = [
    ...exceptions.value,
    ...(options.exceptionsWithinPolicies ? loaded.value.exceptions : []),
  ];
  if (!options.exceptionsWithinPolicies && loaded.value.exceptions.length > 0) {
    io.stderr.write(`Warning: ${ApplyMessages.exceptionsInPolicies(loaded.value.exceptions.length)}\n`);
  }
  const exceptionCount = allExceptions.length;
  if (!machine) out(`${ApplyMessages.applying(ruleCount, resources.value.length, exceptionCount)}\n`);

  const progress = createProgress(io, now);
  const evaluated = evaluateAll({
    engine,
    policies: compiled.value,
    resources: resources.value,
    variables,
    ...(userInfo.value ? { requestInfo: userInfo.value } : {}),
    exceptions: allExceptions,
    onProgress: (done, total) => progress.update(done, total, "resources evaluated"),
  });
  progress.clear();

  const counts = countEvaluated(evaluated, options.auditWarn);
  const report = () => buildClusterReport(reportResults(evaluated, options.auditWarn));
  if (machine) {
    out(renderReport(report(), options.output ?? "json"));
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
  io.stderr.write(`${ApplyMessages.timing(resources.value.length, formatSeconds(now() - started))}\n`);

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
