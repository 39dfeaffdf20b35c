/**
 * Every user-visible CLI message format, in one place: users and scripts compare them with upstream
 * Kyverno's output, so wording follows upstream where upstream has one.
 */
import type { JsonValue, KubeObject } from "@kyverno-ts/api";
import type { Difference } from "../run/compare.js";
import type { ResultCounts } from "../run/report-result.js";

function plural(n: number, one: string, many: string): string {
  return n === 1 ? one : many;
}

/** Reasons shown in the REASON column of `test` and in its JSON output. */
export const Reasons = {
  ok: "Ok",
  excluded: "Excluded",
  notFound: "Not found",
  /** A `patchedResources` / `generatedResource` file could not be read or lacks the resource. */
  resourceError: "Resource error",
  /** The patched or generated resource differs from the expected one. */
  resourceDiff: "Resource diff",
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
  /** Heading of a mutated resource, as upstream prints it. */
  mutated: (policy: string, resource: string) => `mutate policy ${policy} applied to ${resource}:`,
  /** Heading of a generated resource. */
  generated: (policy: string, resource: string) => `generate policy ${policy} applied to ${resource}:`,
  patchedTargets: "patched targets:",
  /** After `-o <path>` wrote the mutated and generated resources. */
  written: (n: number, path: string) =>
    `${n} mutated/generated ${plural(n, "resource", "resources")} written to ${path}`,
  emptyOutput: "-o/--output needs json, yaml, or a file or folder path",
  nothingWritten: (path: string) => `no resource was mutated or generated: nothing written to ${path}`,
  divider: "----------------------------------------------------------------------",
  policyReport: "POLICY REPORT:",
  exceptionsInPolicies: (n: number) =>
    `${n} PolicyException ${plural(n, "document", "documents")} found in policy files ignored: pass --exceptions-within-policies or --exception`,
  noResources: "no resources to apply policies to: pass --resource <file|dir> or --stdin",
  noPolicies: "no policies given: pass at least one policy file or directory",
  /** A policy argument held no ClusterPolicy or Policy (`held`: what it did hold). */
  noPolicyIn: (held: string | undefined) =>
    held === undefined
      ? "holds no YAML or JSON document, so no kyverno.io ClusterPolicy or Policy"
      : `holds no kyverno.io ClusterPolicy or Policy, only ${held}: policy files come first, resources go after --resource (-r)`,
  /** More policy arguments without a policy than are listed one by one. */
  moreWithoutPolicy: (n: number) => `and ${n} more ${plural(n, "file", "files")} without a policy`,
  /** A policy document of a kind this version does not evaluate yet. */
  skippedKind: (file: string, kind: string) =>
    `${file}: skipping ${kind}: only kyverno.io ClusterPolicy and Policy are supported`,
  timing: (resources: number, ms: string) =>
    `Applied policies to ${resources} ${plural(resources, "resource", "resources")} in ${ms}`,
  warnExit: (code: number) => `exit as warnExitCode is ${code}`,
  noPass: "exit as no objects satisfied policy",
} as const;

function shortJson(value: JsonValue | undefined): string {
  if (value === undefined) return "(absent)";
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

function describeDiffs(diffs: readonly Difference[]): string {
  return diffs
    .map((d) => `${d.path}: expected ${shortJson(d.expected)}, got ${shortJson(d.actual)}`)
    .join("; ");
}

function objectName(o: KubeObject): string {
  const ns = o.metadata?.namespace;
  return `${o.kind ?? ""}/${ns ? `${ns}/` : ""}${o.metadata?.name ?? ""}`;
}

/** Messages of the `test` command. */
export const TestMessages = {
  /** The resource has no entry (same kind, name and namespace) in an expected-resources file. */
  notInFile: (file: string, o: KubeObject) => `${file}: no resource ${objectName(o)} in the file`,
  noFileReader: (file: string) => `${file}: expected resources are not available`,
  /** The patched resource differs from its entry in `patchedResources` (upstream's wording, then the paths). */
  patchedDiff: (file: string, diffs: readonly Difference[]) =>
    `Patched resource didn't match the one in ${file}: ${describeDiffs(diffs)}`,
  generatedDiff: (file: string, diffs: readonly Difference[]) =>
    `Generated resource didn't match the one in ${file}: ${describeDiffs(diffs)}`,
  nothingGenerated: "the rule generated no resource",
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
  /**
   * The closing line, in the summary's vocabulary (upstream's): a test is one expected result line,
   * and the kyverno-test.yaml files hold them.
   */
  timing: (files: number, tests: number, ms: string) =>
    `Ran ${tests} ${plural(tests, "test", "tests")} from ${files} test ${plural(files, "file", "files")} in ${ms}`,
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

/** Warnings about PolicyExceptions that cannot apply. */
export const ExceptionMessages = {
  /** An exception from a namespace outside `--exception-namespace`. */
  ignoredNamespace: (exception: string, namespace: string, accepted: readonly string[]) =>
    `PolicyException ${exception} ignored: namespace "${namespace}" is not accepted by --exception-namespace ${accepted.join(",")}`,
  /** An exception naming a policy that was not loaded. */
  unknownPolicy: (exception: string, policy: string) =>
    `PolicyException ${exception} names policy "${policy}", which is not loaded: that entry has no effect`,
} as const;

/** Messages of the CLI's stand-in for cluster objects (clone sources, mutate-existing targets). */
export const ClusterMessages = {
  notFound: (apiVersion: string, kind: string, namespace: string, name: string) =>
    `${apiVersion ? `${apiVersion}/` : ""}${kind} ${namespace ? `${namespace}/` : ""}${name} not found: pass it with --cluster-resource (apply) or clusterResources / cloneSourceResource (test)`,
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

/** Messages of `create exception`. */
export const CreateMessages = {
  badFilter: (part: string) =>
    `invalid resource filter "${part}": expected key=value (kind, name, namespace, operation)`,
  badFilterKey: (key: string) =>
    `invalid resource filter key "${key}": expected kind, name, namespace or operation`,
  emptyFilter: 'empty resource filter: expected e.g. --any "kind=Pod,namespace=default,name=x"',
  badPolicyRules: (text: string) =>
    `invalid --policy-rules "${text}": expected the policy name followed by rule names (policy,rule-1,rule-2)`,
  noPolicyRules: "no --policy-rules given: name the policy and its rules (--policy-rules policy,rule-1)",
  noMatch: "no --any or --all resource filter given: the exception must say which resources it covers",
  badName: (name: string) => `invalid name "${name}": expected a lowercase DNS name (a-z, 0-9, '-', '.')`,
  written: (path: string) => `PolicyException written to ${path}`,
} as const;

/** Messages of `bundle`. */
export const BundleMessages = {
  missing: (dir: string) =>
    `the bundled policy folder ${dir} does not exist: 'bundle' runs from a checkout of the kyverno-ts repository (its policies/ folder)`,
  empty: (dir: string) => `no policy files (*.yaml) in ${dir}`,
  /** Comment heading each printed file. */
  source: (name: string) => `Source: policies/${name}`,
  written: (n: number, dir: string, action: string) =>
    `${n} ${plural(n, "policy file", "policy files")} written to ${dir} (validationFailureAction: ${action})`,
} as const;

/** Messages of the `version` command. */
export const VersionMessages = {
  version: (version: string) => `Version: ${version}`,
  compatibility:
    "Compatible with: Kyverno kyverno.io/v1 policies (validate, mutate and generate rules), kyverno.io/v2 PolicyExceptions, Kyverno CLI test format cli.kyverno.io/v1alpha1",
} as const;
