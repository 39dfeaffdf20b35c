/** Test-only: evaluate expressions with a fixed clock and unwrap results (not part of the package). */
import type { JsonValue } from "@kyverno-ts/api";
import { createJmespath, type Jmespath } from "../index.js";

/** `value` returns the result or throws with the error; `error` returns the error or throws. */
export function evaluator(now: Date = new Date("2023-01-12T12:00:00Z")): {
  jp: Jmespath;
  value(expression: string, data?: JsonValue): JsonValue;
  error(expression: string, data?: JsonValue): string;
} {
  const jp = createJmespath({ clock: { now: () => now.getTime() } });
  return {
    jp,
    value(expression, data = null) {
      const result = jp.search(expression, data);
      if (!result.ok) throw new Error(result.error);
      return result.value;
    },
    error(expression, data = null) {
      const result = jp.search(expression, data);
      if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.value)}`);
      return result.error;
    },
  };
}
