import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { JsonValue } from "@kyverno-ts/api";
import { stringify } from "yaml";
import type { CliIo } from "../io.js";
import { ExitCode } from "../io.js";
import { CreateMessages } from "../output/messages.js";
import { reportProblems } from "../output/problems.js";

/** Flags of `kyverno-ts create exception`, named as upstream's. */
export interface CreateExceptionOptions {
  namespace?: string;
  background: boolean;
  /** `policy,rule-1,rule-2,…` entries. */
  policyRules: string[];
  /** Resource filters: `kind=Pod,namespace=default,name=x`. */
  any: string[];
  all: string[];
  /** Write here instead of stdout. */
  output?: string;
}

/** A `match.any[]` / `match.all[]` entry's `resources`. */
type ResourceFilter = Partial<Record<"kinds" | "names" | "namespaces" | "operations", string[]>>;

const FILTER_KEYS: Record<string, keyof ResourceFilter> = {
  kind: "kinds",
  kinds: "kinds",
  name: "names",
  names: "names",
  namespace: "namespaces",
  namespaces: "namespaces",
  operation: "operations",
  operations: "operations",
};

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** Parses `kind=Pod,kind=Deployment,name=test-*` into a resource filter (keys may repeat). */
export function parseResourceFilter(text: string): Parsed<ResourceFilter> {
  const filter: ResourceFilter = {};
  for (const raw of text.split(",")) {
    const part = raw.trim();
    if (part === "") continue;
    const eq = part.indexOf("=");
    if (eq <= 0) return { ok: false, error: CreateMessages.badFilter(part) };
    const key = FILTER_KEYS[part.slice(0, eq).trim().toLowerCase()];
    const value = part.slice(eq + 1).trim();
    if (key === undefined) return { ok: false, error: CreateMessages.badFilterKey(part.slice(0, eq).trim()) };
    if (value === "") return { ok: false, error: CreateMessages.badFilter(part) };
    filter[key] = [...(filter[key] ?? []), key === "operations" ? value.toUpperCase() : value];
  }
  if (Object.keys(filter).length === 0) return { ok: false, error: CreateMessages.emptyFilter };
  return { ok: true, value: filter };
}

/** Parses `policy,rule-1,rule-2` into an exception entry. */
export function parsePolicyRules(text: string): Parsed<{ policyName: string; ruleNames: string[] }> {
  const [policyName = "", ...ruleNames] = text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (policyName === "" || ruleNames.length === 0)
    return { ok: false, error: CreateMessages.badPolicyRules(text) };
  return { ok: true, value: { policyName, ruleNames } };
}

/** Builds the `kyverno.io/v2` PolicyException document. */
export function buildException(name: string, options: CreateExceptionOptions): Parsed<JsonValue> {
  const exceptions: JsonValue[] = [];
  for (const entry of options.policyRules) {
    const parsed = parsePolicyRules(entry);
    if (!parsed.ok) return parsed;
    exceptions.push(parsed.value);
  }
  if (exceptions.length === 0) return { ok: false, error: CreateMessages.noPolicyRules };
  const filters = (list: readonly string[]): Parsed<JsonValue[]> => {
    const out: JsonValue[] = [];
    for (const text of list) {
      const f = parseResourceFilter(text);
      if (!f.ok) return f;
      out.push({ resources: f.value });
    }
    return { ok: true, value: out };
  };
  const any = filters(options.any);
  if (!any.ok) return any;
  const all = filters(options.all);
  if (!all.ok) return all;
  if (any.value.length === 0 && all.value.length === 0) return { ok: false, error: CreateMessages.noMatch };
  const match: { [key: string]: JsonValue } = {};
  if (any.value.length > 0) match.any = any.value;
  if (all.value.length > 0) match.all = all.value;
  return {
    ok: true,
    value: {
      apiVersion: "kyverno.io/v2",
      kind: "PolicyException",
      metadata: { name, ...(options.namespace ? { namespace: options.namespace } : {}) },
      spec: { background: options.background, exceptions, match },
    },
  };
}

const DNS_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * `create exception <name>`: prints (or writes with `-o`) a `kyverno.io/v2` PolicyException for the
 * given policy rules and resource filters, as upstream's `kyverno create exception`.
 * Exit 2 on a missing or malformed flag.
 */
export function runCreateException(name: string, options: CreateExceptionOptions, io: CliIo): number {
  const fail = (message: string) => reportProblems(io, [{ file: "create exception", message }]);
  if (!DNS_NAME.test(name) || name.length > 253) return fail(CreateMessages.badName(name));
  if (options.namespace !== undefined && !DNS_NAME.test(options.namespace))
    return fail(CreateMessages.badName(options.namespace));
  const built = buildException(name, options);
  if (!built.ok) return fail(built.error);
  const text = stringify(built.value, { lineWidth: 0 });
  // `-o -` is stdout, as for every other file argument of the CLI.
  if (options.output === undefined || options.output === "-") {
    io.stdout.write(text);
    return ExitCode.Ok;
  }
  const target = resolve(io.cwd, options.output);
  try {
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
  } catch (error) {
    return reportProblems(io, [{ file: options.output, message: (error as Error).message }]);
  }
  io.stderr.write(`${CreateMessages.written(options.output)}\n`);
  return ExitCode.Ok;
}
