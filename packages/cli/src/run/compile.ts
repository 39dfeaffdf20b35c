import type { Policy } from "@kyverno-ts/api";
import type { CompiledPolicy, Engine } from "@kyverno-ts/engine";
import type { InputProblem, InputResult } from "../load/files.js";
import { InputMessages } from "../output/messages.js";

/** A policy with the file it was loaded from, for error messages. */
export interface SourcedPolicy {
  policy: Policy;
  file: string;
  /** 0-based document index in the file, as `@kyverno-ts/api` counts them. */
  document: number;
}

/**
 * Compiles policies once; any compile issue (bad regex, unknown JMESPath function, …) is an input
 * problem naming the file, document, policy and field path.
 */
export function compilePolicies(
  engine: Engine,
  policies: readonly SourcedPolicy[],
): InputResult<CompiledPolicy[]> {
  const compiled: CompiledPolicy[] = [];
  const problems: InputProblem[] = [];
  for (const p of policies) {
    let result: ReturnType<Engine["compile"]>;
    try {
      result = engine.compile(p.policy);
    } catch (error) {
      problems.push({
        code: "invalid-value",
        file: p.file,
        document: p.document,
        path: "",
        message: InputMessages.compileIssue(p.policy.metadata.name, InputMessages.internal("compile", error)),
      });
      continue;
    }
    if (result.ok) {
      compiled.push(result.policy);
      continue;
    }
    for (const issue of result.issues) {
      problems.push({
        code: "invalid-value",
        file: p.file,
        document: p.document,
        path: issue.path,
        message: InputMessages.compileIssue(p.policy.metadata.name, issue.message),
      });
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: compiled };
}
