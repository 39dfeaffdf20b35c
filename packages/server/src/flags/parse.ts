/**
 * Go's flag syntax over the flag table: `-flag=value`, `--flag=value`, `-flag value`, `--flag value`,
 * booleans as `--flag` or `--flag=false`; a repeated flag keeps its last value (except repeatable
 * ones). Values are checked against their type here, so the accessors of `ParsedFlags` cannot fail.
 */
import { parseDurationMs } from "@kyverno-ts/k8s";
import { type ControllerName, FLAGS, type FlagSpec, flagsOf } from "./catalog.js";

/** Flags as given on a command line, with typed accessors that fall back to the environment and defaults. */
export interface ParsedFlags {
  readonly controller: ControllerName;
  /** `-h`, `-help` or `--help` was given. */
  readonly help: boolean;
  /** Whether the flag (by its table name) was given. */
  given(name: string): boolean;
  /** The flag's value: the last given, else its environment variable, else its default. */
  string(name: string): string;
  /** The flag's value, or undefined when neither given nor set by its environment variable. */
  optional(name: string): string | undefined;
  bool(name: string): boolean;
  int(name: string): number;
  float(name: string): number;
  /** A duration flag in milliseconds. */
  durationMs(name: string): number;
  /** Every value of a repeatable flag, in order. */
  list(name: string): string[];
  /**
   * One warning per given flag that has no effect in this controller (upstream's flags kyverno-ts
   * accepts without acting on them), unless given the value kyverno-ts behaves as anyway.
   */
  warnings(): string[];
}

/** Outcome of parsing: the flags, or a message for the user (Go's wording). */
export type FlagParse = { ok: true; flags: ParsedFlags } | { ok: false; message: string };

const TRUE = new Set(["1", "t", "T", "true", "TRUE", "True"]);
const FALSE = new Set(["0", "f", "F", "false", "FALSE", "False"]);

/** Go's strconv.ParseBool. */
export function parseGoBool(text: string): boolean | undefined {
  return TRUE.has(text) ? true : FALSE.has(text) ? false : undefined;
}

/** A duration flag's value in milliseconds (Go's syntax); negative durations are rejected (no flag takes one). */
function flagDurationMs(value: string): number | undefined {
  const ms = parseDurationMs(value.trim());
  return ms === undefined || ms < 0 ? undefined : ms;
}

function validValue(spec: FlagSpec, value: string): boolean {
  switch (spec.type) {
    case "bool":
      return parseGoBool(value) !== undefined;
    case "int":
      return /^[+-]?\d+$/.test(value.trim());
    case "float":
      return value.trim() !== "" && Number.isFinite(Number(value));
    case "duration":
      return flagDurationMs(value) !== undefined;
    default:
      return true;
  }
}

/** Whether `value` means the same as `other` for the flag's type (`--renewBefore=360h` is `360h0m0s`). */
function sameValue(spec: FlagSpec, value: string, other: string): boolean {
  if (spec.type === "bool") return parseGoBool(value) === parseGoBool(other);
  if (spec.type === "duration") return flagDurationMs(value) === flagDurationMs(other);
  if (spec.type === "int" || spec.type === "float") return Number(value) === Number(other);
  return value === other;
}

/** Parses a controller's arguments (everything after the subcommand); `env` supplies fallbacks. */
export function parseFlags(
  controller: ControllerName,
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): FlagParse {
  const accepted = flagsOf(controller);
  const byName = new Map<string, FlagSpec>();
  for (const spec of accepted) for (const n of [spec.name, ...(spec.aliases ?? [])]) byName.set(n, spec);
  const values = new Map<string, string[]>();
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      if (i + 1 < argv.length) return { ok: false, message: `unexpected argument "${argv[i + 1]}"` };
      break;
    }
    if (!arg.startsWith("-") || arg === "-") return { ok: false, message: `unexpected argument "${arg}"` };
    const body = arg.startsWith("--") ? arg.slice(2) : arg.slice(1);
    if (body === "" || body.startsWith("-") || body.startsWith("="))
      return { ok: false, message: `bad flag syntax: ${arg}` };
    const eq = body.indexOf("=");
    const name = eq < 0 ? body : body.slice(0, eq);
    if (name === "help" || name === "h") {
      help = true;
      continue;
    }
    const spec = byName.get(name);
    if (spec === undefined) return { ok: false, message: unknownFlag(name) };
    let value: string;
    if (eq >= 0) value = body.slice(eq + 1);
    else if (spec.type === "bool") {
      const next = argv[i + 1];
      if (next !== undefined && (next === "true" || next === "false"))
        return { ok: false, message: `-${name} is a boolean flag: write --${name}=${next}` };
      value = "true";
    } else {
      const next = argv[i + 1];
      if (next === undefined) return { ok: false, message: `flag needs an argument: -${name}` };
      value = next;
      i++;
    }
    if (!validValue(spec, value))
      return {
        ok: false,
        message:
          spec.type === "bool"
            ? `invalid boolean value "${value}" for -${name}: parse error`
            : `invalid value "${value}" for flag -${name}: ${spec.type === "duration" ? "not a Go duration (e.g. 30s, 10m, 1h)" : `parse error (expected ${spec.type === "int" ? "an integer" : "a number"})`}`,
      };
    const previous = values.get(spec.name) ?? [];
    values.set(spec.name, spec.repeatable ? [...previous, value] : [value]);
  }
  return { ok: true, flags: parsedFlags(controller, values, help, env, accepted) };
}

/** Go's message for an unknown flag, and where the flag belongs when it is another controller's. */
function unknownFlag(name: string): string {
  const elsewhere = FLAGS.find((f) => f.name === name || f.aliases?.includes(name));
  const where = elsewhere
    ? ` (a flag of the ${elsewhere.controllers.join(", ")} controller${elsewhere.controllers.length > 1 ? "s" : ""})`
    : "";
  return `flag provided but not defined: -${name}${where}`;
}

function parsedFlags(
  controller: ControllerName,
  values: ReadonlyMap<string, string[]>,
  help: boolean,
  env: Readonly<Record<string, string | undefined>>,
  accepted: readonly FlagSpec[],
): ParsedFlags {
  const specOf = (name: string): FlagSpec => {
    const spec = accepted.find((f) => f.name === name);
    if (spec === undefined) throw new Error(`the ${controller} controller has no flag "${name}"`);
    return spec;
  };
  const optional = (name: string): string | undefined => {
    const spec = specOf(name);
    const given = values.get(name);
    if (given !== undefined) return given[given.length - 1];
    return spec.env !== undefined ? env[spec.env] : undefined;
  };
  const string = (name: string): string => optional(name) ?? specOf(name).default;
  return {
    controller,
    help,
    given: (name) => values.has(specOf(name).name),
    string,
    optional,
    bool: (name) => parseGoBool(string(name)) === true,
    int: (name) => Number.parseInt(string(name), 10),
    float: (name) => Number(string(name)),
    durationMs: (name) => flagDurationMs(string(name)) ?? 0,
    list: (name) => [...(values.get(specOf(name).name) ?? [])],
    warnings: () =>
      accepted.flatMap((spec) => {
        const given = values.get(spec.name);
        if (given === undefined || spec.implemented.includes(controller)) return [];
        const value = given[given.length - 1] as string;
        if (spec.inert !== undefined && sameValue(spec, value, spec.inert)) return [];
        return [
          `--${spec.name}${spec.type === "bool" ? `=${value}` : ""} is accepted and has no effect in kyverno-ts because ${spec.reason ?? "it is not implemented"}`,
        ];
      }),
  };
}
