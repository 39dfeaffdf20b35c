import type { LineOutcome } from "../run/judge.js";
import type { TestFileResult, TestRun } from "../run/test-runner.js";
import { TestMessages } from "./messages.js";
import { renderTable } from "./table.js";

/** Display options of the human output. */
export interface TestDisplayOptions {
  failOnly: boolean;
  detailed: boolean;
}

function resourceCell(o: LineOutcome): string {
  return o.kind ? `${o.kind}/${o.resource}` : o.resource;
}

function rows(outcomes: readonly LineOutcome[], detailed: boolean, withTest: boolean): string[][] {
  return outcomes.map((o, i) => {
    const row = [String(i + 1)];
    if (withTest) row.push(o.test);
    row.push(o.policy, o.rule, resourceCell(o), o.ok ? "Pass" : "Fail", o.reason);
    if (detailed) row.push(o.message);
    return row;
  });
}

function headers(detailed: boolean, withTest: boolean): string[] {
  const h = ["ID", ...(withTest ? ["TEST"] : []), "POLICY", "RULE", "RESOURCE", "RESULT", "REASON"];
  return detailed ? [...h, "MESSAGE"] : h;
}

/** Upstream's block for one test: loading lines, notes, then the table of its result lines. */
export function renderTestFile(file: TestFileResult, options: TestDisplayOptions): string {
  const lines = [TestMessages.loading(file.name, file.path)];
  if (file.loadError !== undefined) {
    lines.push(...file.notes.map((n) => `  ${n}`), TestMessages.loadFailed(file.path, file.loadError), "");
    return lines.join("\n");
  }
  lines.push(
    TestMessages.loadingValues,
    TestMessages.loadingPolicies,
    TestMessages.loadingResources,
    TestMessages.loadingExceptions,
  );
  lines.push(...file.notes.map((n) => `  ${n}`));
  lines.push(
    TestMessages.applying(file.policies, file.resources, file.exceptions),
    TestMessages.checking,
    "",
  );
  const shown = options.failOnly ? file.outcomes.filter((o) => !o.ok) : file.outcomes;
  if (shown.length > 0)
    lines.push(renderTable(headers(options.detailed, false), rows(shown, options.detailed, false)), "");
  return lines.join("\n");
}

/** Counts of a run, as printed and as put in the JSON summary. */
export interface TestSummary {
  /** (result line × resource) entries that matched expectations. */
  passed: number;
  failed: number;
  /** Passing entries whose policy answered without the rule (`Excluded`). */
  excluded: number;
  tests: number;
  testsPassed: number;
  testsFailed: number;
  /** Test files that could not be loaded (counted in `testsFailed`). */
  loadErrors: number;
}

/** Computes the summary of a run. */
export function summarize(run: TestRun): TestSummary {
  const all = run.files.flatMap((f) => f.outcomes);
  const failedFiles = run.files.filter(
    (f) => f.loadError !== undefined || f.outcomes.some((o) => !o.ok),
  ).length;
  return {
    passed: all.filter((o) => o.ok).length,
    failed: all.filter((o) => !o.ok).length,
    excluded: all.filter((o) => o.ok && o.actual === "excluded").length,
    tests: run.files.length,
    testsPassed: run.files.length - failedFiles,
    testsFailed: failedFiles,
    loadErrors: run.files.filter((f) => f.loadError !== undefined).length,
  };
}

/** The closing lines: upstream's `Test Summary`, then the failing lines of every test. */
export function renderClosing(run: TestRun, options: TestDisplayOptions): string {
  const s = summarize(run);
  const lines = [TestMessages.summary(s.passed, s.failed)];
  const failures = run.files.flatMap((f) => f.outcomes.filter((o) => !o.ok));
  if (failures.length > 0 && !options.failOnly) {
    lines.push(
      "",
      TestMessages.failedTests,
      renderTable(headers(options.detailed, true), rows(failures, options.detailed, true)),
    );
  }
  return `${lines.join("\n")}\n`;
}

/** The `-o json` document: exactly one object with every (line × resource) entry and the summary. */
export function renderJson(run: TestRun, detailed: boolean): string {
  const results = run.files.flatMap((f) =>
    f.outcomes.map((o) => {
      const entry: Record<string, string | boolean> = {
        test: o.test,
        policy: o.policy,
        rule: o.rule,
        resource: o.resource,
        kind: o.kind,
        expected: o.expected,
        actual: o.actual,
        ok: o.ok,
        reason: o.reason,
      };
      if (detailed) entry.message = o.message;
      return entry;
    }),
  );
  return `${JSON.stringify({ results, summary: summarize(run) }, null, 2)}\n`;
}
