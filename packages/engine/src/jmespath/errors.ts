/**
 * Errors raised by function implementations. They are thrown inside the interpreter (which has no
 * other channel) and turned into `{ ok: false }` results at the `search` boundary; nothing escapes.
 * Messages follow Kyverno's `JMESPath function '<name>': …` format so reports read the same.
 */
export class JmespathFunctionError extends Error {
  override readonly name = "JmespathFunctionError";
}

/** A Kyverno-style error for function `fn`. */
export function functionError(fn: string, message: string): JmespathFunctionError {
  return new JmespathFunctionError(`JMESPath function '${fn}': ${message}`);
}

/** Kyverno's "N argument is expected of T type" error (N is 1-based). */
export function argumentTypeError(fn: string, position: number, type: string): JmespathFunctionError {
  return functionError(fn, `${position} argument is expected of ${type} type`);
}

/** The message of anything thrown, without assuming it is an Error. */
export function messageOf(thrown: unknown): string {
  if (thrown instanceof Error) return thrown.message;
  return String(thrown);
}
