/**
 * The simple JSONPath CRD printer columns use: `.a.b`, `.a[0]`, `.a[*].b`, `.a['x.y']` and filters
 * `.a[?(@.type=="Ready")].status`. Returns every match (columns show the first).
 */
import type { JsonValue } from "@kyverno-ts/api";

type Step =
  | { key: string }
  | { index: number }
  | { all: true }
  | { filter: { path: string[]; op: "==" | "!="; value: string } };

/** Parses a path once; `undefined` when it is not in the supported subset. */
export function parseJsonPath(path: string): Step[] | undefined {
  const text = path.replace(/^\{|\}$/g, "").trim();
  const steps: Step[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === ".") {
      const m = /^\.([A-Za-z0-9_$-]+)/.exec(text.slice(i));
      if (m === null) return undefined;
      steps.push({ key: m[1] ?? "" });
      i += m[0].length;
    } else if (ch === "[") {
      const end = text.indexOf("]", i);
      if (end < 0) return undefined;
      const inner = text.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === "*") steps.push({ all: true });
      else if (/^-?\d+$/.test(inner)) steps.push({ index: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ key: inner.slice(1, -1) });
      else {
        const f = /^\?\(@((?:\.[A-Za-z0-9_-]+)+)\s*(==|!=)\s*['"]?([^'"]*)['"]?\)$/.exec(inner);
        if (f === null) return undefined;
        steps.push({
          filter: {
            path: (f[1] ?? "").slice(1).split("."),
            op: f[2] === "!=" ? "!=" : "==",
            value: f[3] ?? "",
          },
        });
      }
    } else return undefined;
  }
  return steps;
}

/** Every value `steps` reach from `root`. */
export function evaluateJsonPath(steps: Step[], root: JsonValue): JsonValue[] {
  let current: JsonValue[] = [root];
  for (const step of steps) {
    const next: JsonValue[] = [];
    for (const v of current) {
      if ("key" in step) {
        if (v !== null && typeof v === "object" && !Array.isArray(v) && v[step.key] !== undefined)
          next.push(v[step.key] as JsonValue);
      } else if ("index" in step) {
        if (Array.isArray(v)) {
          const item = v[step.index < 0 ? v.length + step.index : step.index];
          if (item !== undefined) next.push(item);
        }
      } else if ("all" in step) {
        if (Array.isArray(v)) next.push(...v);
        else if (v !== null && typeof v === "object") next.push(...Object.values(v));
      } else if (Array.isArray(v)) {
        for (const item of v) {
          let x: JsonValue | undefined = item;
          for (const k of step.filter.path)
            x = x !== null && typeof x === "object" && !Array.isArray(x) ? x[k] : undefined;
          const s = x === undefined ? undefined : typeof x === "string" ? x : JSON.stringify(x);
          if ((s === step.filter.value) === (step.filter.op === "==")) next.push(item);
        }
      }
    }
    current = next;
  }
  return current;
}
