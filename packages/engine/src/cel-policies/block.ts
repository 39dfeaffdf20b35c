/**
 * The parts every CEL policy kind shares, compiled once: `matchConditions`, `variables` (lazy, may
 * reference each other), `validations` with their messages and `auditAnnotations`. Compile errors
 * name the field path and the expression's error; evaluation only runs programs.
 */
import type { CelValue } from "@bufbuild/cel";
import type { AuditAnnotation, CelValidation, NamedExpression } from "@kyverno-ts/api";
import type { CelEnvironment, CelProgram } from "../cel/env.js";
import type { CelSession } from "../cel/session.js";
import { celToString } from "../cel/values.js";
import type { CompileIssue } from "../engine-types.js";

/** A named, compiled expression. */
export interface NamedProgram {
  readonly name: string;
  readonly program: CelProgram;
}

/** A compiled validation. */
export interface CompiledValidation {
  readonly program: CelProgram;
  readonly message: string | undefined;
  readonly messageProgram: CelProgram | undefined;
  readonly reason: string | undefined;
}

/** The compiled shared parts of a policy. */
export interface CompiledBlock {
  readonly matchConditions: readonly NamedProgram[];
  readonly variables: readonly NamedProgram[];
  readonly validations: readonly CompiledValidation[];
  readonly auditAnnotations: readonly NamedProgram[];
  /** The identifiers its expressions read (`object`, `request`, …): only those are bound. */
  readonly reads: ReadonlySet<string>;
  /** `variables` by name, for the lazy `variables` binding. */
  readonly variableIndex: ReadonlyMap<string, CelProgram>;
}

/** The identifiers a set of programs reads. */
export function identifiersOf(programs: Iterable<CelProgram | undefined>): Set<string> {
  const out = new Set<string>();
  for (const p of programs) if (p !== undefined) for (const id of p.reads.identifiers) out.add(id);
  return out;
}

/** The source of a block: the fields as written. */
export interface BlockSource {
  matchConditions?: readonly NamedExpression[] | undefined;
  variables?: readonly NamedExpression[] | undefined;
  validations?: readonly CelValidation[] | undefined;
  auditAnnotations?: readonly AuditAnnotation[] | undefined;
}

/** Compiles expressions, collecting issues with their field paths. */
export class BlockCompiler {
  readonly issues: CompileIssue[] = [];
  constructor(private readonly env: CelEnvironment) {}

  /** Compiles one expression at `path`; undefined (and an issue) when it does not compile. */
  expression(expression: string, path: string): CelProgram | undefined {
    const compiled = this.env.compile(expression);
    if (compiled.ok) return compiled.program;
    this.issues.push({
      path,
      message: `compilation error: ${compiled.error} in expression ${JSON.stringify(expression)}`,
    });
    return undefined;
  }

  named(list: readonly NamedExpression[] | undefined, path: string): NamedProgram[] {
    const out: NamedProgram[] = [];
    (list ?? []).forEach((item, i) => {
      const program = this.expression(item.expression, `${path}[${i}].expression`);
      if (program) out.push({ name: item.name, program });
    });
    return out;
  }

  /** Compiles a block whose fields sit under `path` (`spec`, `spec.rules[0].validate.cel`). */
  block(source: BlockSource, path: string, validationsField = "validations"): CompiledBlock {
    const validations: CompiledValidation[] = [];
    (source.validations ?? []).forEach((v, i) => {
      const at = `${path}.${validationsField}[${i}]`;
      const program = this.expression(v.expression, `${at}.expression`);
      const messageProgram =
        v.messageExpression !== undefined && v.messageExpression !== ""
          ? this.expression(v.messageExpression, `${at}.messageExpression`)
          : undefined;
      if (program) validations.push({ program, message: v.message, messageProgram, reason: v.reason });
    });
    const auditAnnotations: NamedProgram[] = [];
    (source.auditAnnotations ?? []).forEach((a, i) => {
      const program = this.expression(a.valueExpression, `${path}.auditAnnotations[${i}].valueExpression`);
      if (program) auditAnnotations.push({ name: a.key, program });
    });
    const matchConditions = this.named(source.matchConditions, `${path}.matchConditions`);
    const variables = this.named(source.variables, `${path}.variables`);
    const reads = identifiersOf([
      ...matchConditions.map((c) => c.program),
      ...variables.map((v) => v.program),
      ...validations.flatMap((v) => [v.program, v.messageProgram]),
      ...auditAnnotations.map((a) => a.program),
    ]);
    const variableIndex = new Map(variables.map((v) => [v.name, v.program]));
    return { matchConditions, variables, validations, auditAnnotations, reads, variableIndex };
  }
}

/** Outcome of `matchConditions`: all true, one false, or an error. */
export type ConditionsOutcome = { matched: true } | { matched: false } | { matched: false; error: string };

const MATCHED: ConditionsOutcome = Object.freeze({ matched: true });

/** Evaluates match conditions as the API server: false wins over errors; errors otherwise fail. */
export function evaluateConditions(
  conditions: readonly NamedProgram[],
  bindings: Readonly<Record<string, CelValue>>,
  session: CelSession,
): ConditionsOutcome {
  if (conditions.length === 0) return MATCHED;
  let error: string | undefined;
  for (const c of conditions) {
    const out = c.program.evaluate(bindings, session);
    if (!out.ok) {
      error ??= `matchCondition '${c.name}': ${out.error}`;
      continue;
    }
    if (out.value === false) return { matched: false };
    if (out.value !== true) error ??= `matchCondition '${c.name}': must evaluate to bool`;
  }
  return error === undefined ? { matched: true } : { matched: false, error };
}

/** The outcome of a block's validations. */
export interface ValidationsOutcome {
  readonly status: "pass" | "fail" | "error";
  readonly message: string;
  readonly reason?: string;
}

/** A single-line, non-blank message from `messageExpression`, else undefined (upstream falls back). */
function messageOf(
  v: CompiledValidation,
  bindings: Readonly<Record<string, CelValue>>,
  session: CelSession,
): string {
  if (v.messageProgram) {
    const out = v.messageProgram.evaluate(bindings, session);
    if (out.ok && typeof out.value === "string" && out.value.trim() !== "" && !out.value.includes("\n"))
      return out.value;
  }
  if (v.message !== undefined && v.message !== "") return v.message;
  return `failed expression: ${v.program.expression}`;
}

/**
 * Runs the validations in order: the first that is false fails with its message (messageExpression,
 * message, else `failed expression: …`), the first error is an error; all true pass.
 */
export function evaluateValidations(
  validations: readonly CompiledValidation[],
  bindings: Readonly<Record<string, CelValue>>,
  session: CelSession,
): ValidationsOutcome {
  for (const v of validations) {
    const out = v.program.evaluate(bindings, session);
    if (!out.ok) return { status: "error", message: `${v.program.expression}: ${out.error}` };
    if (out.value === true) continue;
    if (out.value !== false)
      return {
        status: "error",
        message: `${v.program.expression}: validation expression must evaluate to bool, got ${celToString(out.value)}`,
      };
    const failed: ValidationsOutcome = { status: "fail", message: messageOf(v, bindings, session) };
    return v.reason !== undefined ? { ...failed, reason: v.reason } : failed;
  }
  return { status: "pass", message: "" };
}

/** Evaluates audit annotations into a key → value map (failed ones are left out). */
export function evaluateAuditAnnotations(
  annotations: readonly NamedProgram[],
  bindings: Readonly<Record<string, CelValue>>,
  session: CelSession,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of annotations) {
    const r = a.program.evaluate(bindings, session);
    if (r.ok && r.value !== null) out[a.name] = celToString(r.value);
  }
  return out;
}
