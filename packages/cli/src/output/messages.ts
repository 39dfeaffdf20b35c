/**
 * Every user-visible CLI message format, in one place: users and scripts compare them with upstream
 * Kyverno's output, so wording follows upstream where upstream has one.
 */
import type { ResultCounts } from "../run/report-result.js";

function plural(n: number, one: string, many: string): string {
  return n === 1 ? one : many;
}

/** Reasons shown in the REASON column of `test` and in its JSON output. */
export const Reasons = {
  ok: "Ok",
  excluded: "Excluded",
  notFound: "Not found",
  mutateGenerate: "mutate/generate not supported yet",
  celPolicy: "CEL policies not supported yet",
  checks: "checks not supported yet",
  /** The computed result differs from the expected one. */
  want: (expected: string, actual: string) => `Want ${expected}, got ${actual}`,
  /** The test file could not be loaded. */
  loadError: (message: string) => `load error: ${message}`,
} as const;

/** Messages of the `apply` command. */
export const ApplyMessages = {
  /** `Applying 3 policy rule(s) to 2 resource(s) with 1 exception(s)...` */
  applying: (rules: number, resources: number, exceptions: number) =>
    `Applying ${rules} policy rule(s) to ${resources} resource(s)${exceptions > 0 ? ` with ${exceptions} exception(s)` : ""}...`,
  /** Heading of a policy's failures on a resource. */
  failedHeader: (policy: string, resource: string) => `policy ${policy} -> resource ${resource} failed: `,
  /** Heading of a policy's errors on a resource. */
  errorHeader: (policy: string, resource: string) => `policy ${policy} -> resource ${resource} error: `,
  /** Heading of a policy's warnings on a resource. */
  warnHeader: (policy: string, resource: string) => `policy ${policy} -> resource ${resource} warning: `,
  /** One numbered rule line under a heading. */
  ruleLine: (index: number, rule: string, message: string) => `${index}. ${rule}: ${message} `,
  /** Final counts line. */
  summary: (c: ResultCounts) =>
    `pass: ${c.pass}, fail: ${c.fail}, warn: ${c.warn}, error: ${c.error}, skip: ${c.skip} `,
  divider: "----------------------------------------------------------------------",
  policyReport: "POLICY REPORT:",
  exceptionsInPolicies: (n: number) =>
    `${n} PolicyException ${plural(n, "document", "documents")} found in policy files ignored: pass --exceptions-within-policies or --exception`,
  noResources: "no resources to apply policies to: pass --resource <file|dir> or --stdin",
  noPolicies: "no policies given: pass at least one policy file or directory",
  /** A policy document of a kind this version does not evaluate yet. */
  skippedKind: (file: string, kind: string) =>
    `${file}: skipping ${kind}: only kyverno.io ClusterPolicy and Policy are supported`,
  timing: (resources: number, ms: string) =>
    `Applied policies to ${resources} ${plural(resources, "resource", "resources")} in ${ms}`,
  warnExit: (code: number) => `exit as warnExitCode is ${code}`,
  noPass: "exit as no objects satisfied policy",
} as const;

/** Messages of the `test` command. */
export const TestMessages = {
  loading: (name: string, path: string) => `Loading test ${name} ( ${path} ) ...`,
  loadingValues: "  Loading values/variables ...",
  loadingUserInfo: "  Loading user infos ...",
  loadingPolicies: "  Loading policies ...",
  loadingResources: "  Loading resources ...",
  loadingExceptions: "  Loading exceptions ...",
  /** `  Applying 1 policy to 2 resources with 1 exception ...` */
  applying: (policies: number, resources: number, exceptions: number) =>
    `  Applying ${policies} ${plural(policies, "policy", "policies")} to ${resources} ${plural(resources, "resource", "resources")}${
      exceptions > 0 ? ` with ${exceptions} ${plural(exceptions, "exception", "exceptions")}` : ""
    } ...`,
  checking: "  Checking results ...",
  loadFailed: (path: string, message: string) => `  Error: failed to load test ( ${path} ): ${message}`,
  exceptionsInPolicies: (n: number) =>
    `  Warning: ${n} PolicyException ${plural(n, "document", "documents")} found in policy files ignored: list exception files under 'exceptions'`,
  duplicateResource: (key: string) => `  Warning: found duplicated resource ${key}, keeping the first one`,
  summary: (passed: number, failed: number) =>
    `Test Summary: ${passed} ${plural(passed, "test", "tests")} passed and ${failed} ${plural(failed, "test", "tests")} failed`,
  failedTests: "Failed tests:",
  noTests: (fileName: string) => `No test files (${fileName}) found`,
  timing: (tests: number, lines: number, ms: string) =>
    `Ran ${tests} ${plural(tests, "test", "tests")} (${lines} result ${plural(lines, "line", "lines")}) in ${ms}`,
} as const;

/** Problems found in inputs, beyond the api loader's own messages. */
export const InputMessages = {
  resourceNotObject: "a resource must be an object",
  missingField: (name: string) => `missing field "${name}"`,
  emptyFile: (what: string) => `${what} file is empty`,
  invalidSet: (part: string) => `invalid --set value "${part}": expected key=value`,
  invalidSelector: (part: string) => `invalid test case selector "${part}": expected key=value`,
  invalidSelectorKey: (key: string) =>
    `invalid test case selector key "${key}": expected policy, rule or resource`,
  compileIssue: (policy: string, message: string) => `policy ${policy}: ${message}`,
  internal: (what: string, error: unknown) =>
    `internal ${what} error: ${error instanceof Error ? error.message : String(error)}`,
  /** Joins a reason made of several problems: `a; b; c; and 4 more`. */
  andMore: (shown: readonly string[], rest: number) =>
    rest > 0 ? `${shown.join("; ")}; and ${rest} more` : shown.join("; "),
} as const;

/** Messages shared by commands. */
export const CommonMessages = {
  /** Prefix of every input error on stderr. */
  error: (message: string) => `Error: ${message}`,
  urlNotFetched: (url: string) => `${url}: URLs are not fetched; download the file and pass its local path`,
  notFound: (path: string) => `${path}: no such file or directory`,
  stdinUnavailable: "stdin is not available",
  stdinTwice: "stdin ('-') can be read only once",
  noYamlInDir: (dir: string) => `${dir}: no YAML or JSON files found`,
} as const;

/** Messages of the `jp` commands. */
export const JpMessages = {
  /** Printed before each result, as upstream: `# <expression>`. */
  header: (expr: string) => `# ${expr}`,
  error: (expr: string, error: string) => `Error: ${expr}: ${error}`,
  noExpression: "no JMESPath expression given: pass it as an argument, with -q FILE, or on stdin",
  valid: "valid: syntax and function names are correct",
  unknownFunction: (name: string) => `unknown function "${name}"; run 'kyverno-ts jp function' for the list`,
  /** One function of `jp function`, in upstream's layout. */
  functionEntry: (name: string, signature: string, returnType: string, description: string) =>
    `Name: ${name}\n  Signature: ${signature}${returnType ? ` ${returnType}` : ""}\n  Note:      ${description}\n`,
} as const;

/** Messages of the `version` command. */
export const VersionMessages = {
  version: (version: string) => `Version: ${version}`,
  compatibility:
    "Compatible with: Kyverno kyverno.io/v1 policies (validate rules), Kyverno CLI test format cli.kyverno.io/v1alpha1",
} as const;
