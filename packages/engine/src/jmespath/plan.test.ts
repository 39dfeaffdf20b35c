import { compile, TreeInterpreter } from "@jmespath-community/jmespath";
import { describe, expect, it } from "vitest";
import { createJmespath } from "./jmespath.js";
import { type Ast, planExpression } from "./plan.js";

type Interpreter = typeof TreeInterpreter;
const interpreter = new (TreeInterpreter.constructor as new () => Interpreter)();
const call = (name: string, args: unknown[]) => interpreter.runtime.callFunction(name, args as never);

/** The interpreter's answer: its value, or the message it threw. */
function interpreted(ast: Ast, data: unknown): { value: unknown } | { error: string } {
  try {
    return { value: interpreter.search(ast, data as never) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

function planned(ast: Ast, data: unknown): { value: unknown } | { error: string } | undefined {
  const plan = planExpression(ast, call);
  if (!plan) return undefined;
  try {
    return { value: plan(data, data) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

const DATA: unknown[] = [
  null,
  "text",
  0,
  7,
  true,
  [],
  {},
  [1, 2, 3],
  [[1, [2]], [3], 4, null, "x"],
  { a: null, b: false, c: "", d: [], e: {} },
  { a: 1, b: 2, c: [1, 2, 3], d: { e: "x" } },
  { a: { b: { c: 3 } }, b: [{ c: 1 }, { c: 2 }, { d: 3 }], c: { x: { c: 5 }, y: { c: 6 } } },
  { a: [{ b: [{ c: 1 }, { c: 2 }] }, { b: [{ c: 3 }] }, { b: null }], c: "abc", d: ["x", "y"] },
  {
    spec: {
      containers: [
        {
          name: "a",
          securityContext: { capabilities: { drop: ["ALL"], add: ["NET_ADMIN"] } },
          ports: [{ hostPort: 80 }],
        },
        { name: "b", securityContext: { privileged: true } },
      ],
      initContainers: [{ name: "i", ports: [{ containerPort: 1 }, { hostPort: 0 }] }],
    },
  },
];

const EXPRESSIONS = [
  "a",
  "a.b",
  "a.b.c",
  "a.b.c.d",
  // Inherited properties read as the interpreter reads them (it does not check own properties).
  "constructor",
  "a.constructor",
  "b[0]",
  "b[-1]",
  "b[5]",
  "c[1]",
  "a[0].b[1].c",
  "b[*].c",
  "b[].c",
  "a[].b[].c",
  "a[*].b[*].c",
  "c.*.c",
  "c.* | [0]",
  "*",
  "[*]",
  "@",
  "$",
  "a | $",
  "a | b",
  "b[?c > `1`].c",
  "b[?c == `1`]",
  "b[?d]",
  "b[?!d].c",
  "a[?b].b[].c",
  "[]",
  "[][]",
  "c[]",
  "a || b",
  "a && b",
  "a || `[]`",
  "d || 'none'",
  "!a",
  "!!c",
  "a == b",
  "a != b",
  "a < b",
  "a <= `2`",
  "a > 'x'",
  "c >= c",
  "`[1,2]` == `[1,2]`",
  '`{"a":1}` == `{"a":1}`',
  "e == `{}`",
  "[a, b]",
  "[a, b][]",
  "{x: a, y: b}",
  "{x: a, y: b}.x",
  "[a, [b, c]][]",
  "spec.[ephemeralContainers, initContainers, containers][]",
  "spec.[ephemeralContainers, initContainers, containers][].ports[].hostPort",
  "spec.[ephemeralContainers, initContainers, containers][].securityContext.capabilities.add[]",
  "spec.containers[].securityContext.capabilities.drop[] || `[]`",
  "spec.containers[?securityContext.privileged].name",
  "spec.containers[?name == 'a'] | [0].name",
  "length(@)",
  "length(c)",
  "keys(@)",
  "values(@)",
  "contains(d, 'x')",
  "to_string(a)",
  "type(@)",
  "not_null(x, a, b)",
  "starts_with(c, 'a')",
  "length(b[?c > `0`])",
  "abs(a)",
  "sort(d)",
  "join(',', d)",
  "max(c)",
  "sum(c)",
  "length(`1`)",
  "b[?length(@) > `1`]",
  "sort_by(b, &c)",
  "map(&c, b)",
  "c[0:2]",
  "c[::-1]",
  "a + b",
  "let $x = a in $x",
  "a ? b : c",
  "-a",
];

describe("JMESPath plans", () => {
  it("give exactly what the interpreter gives, errors included, for every expression and document", () => {
    let plannedCount = 0;
    for (const expression of EXPRESSIONS) {
      const ast = compile(expression);
      for (const data of DATA) {
        const mine = planned(ast, data);
        if (mine === undefined) continue;
        plannedCount++;
        expect({ expression, data, result: mine }).toEqual({
          expression,
          data,
          result: interpreted(ast, data),
        });
      }
    }
    // Most expressions are planned; the interpreter keeps the rest.
    expect(plannedCount).toBeGreaterThan(60 * DATA.length);
  });

  it("leave slices, arithmetic, let, ternaries and expression references to the interpreter", () => {
    for (const expression of ["c[0:2]", "a + b", "let $x = a in $x", "a ? b : c", "sort_by(b, &c)", "-a"])
      expect(planExpression(compile(expression), call), expression).toBeUndefined();
  });

  it("agree with the interpreter on randomly built expressions", () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1664525 + 1013904223) >>> 0;
      return seed % n;
    };
    const leaf = () =>
      ["a", "b", "c", "d", "@", "`1`", "'x'", "`[1,[2]]`", "b[0]", "c[-1]"][rand(10)] as string;
    const build = (depth: number): string => {
      if (depth === 0) return leaf();
      const l = build(depth - 1);
      const r = build(depth - 1);
      switch (rand(12)) {
        case 0:
          return `${l}.${["a", "b", "c"][rand(3)]}`;
        case 1:
          return `${l}[]`;
        case 2:
          return `${l}[*].${["a", "b", "c"][rand(3)]}`;
        case 3:
          return `(${l} || ${r})`;
        case 4:
          return `(${l} && ${r})`;
        case 5:
          return `!(${l})`;
        case 6:
          return `(${l} ${["==", "!=", "<", ">=", ">"][rand(5)]} ${r})`;
        case 7:
          return `[${l}, ${r}]`;
        case 8:
          return `{p: ${l}, q: ${r}}`;
        case 9:
          return `${l} | ${r}`;
        case 10:
          return `${l}[?${r}]`;
        default:
          return `${l}.*`;
      }
    };
    let compared = 0;
    for (let i = 0; i < 400; i++) {
      const expression = build(1 + rand(3));
      let ast: Ast;
      try {
        ast = compile(expression);
      } catch {
        continue;
      }
      for (const data of DATA) {
        const mine = planned(ast, data);
        if (mine === undefined) continue;
        compared++;
        expect({ expression, result: mine }).toEqual({ expression, result: interpreted(ast, data) });
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });

  it("run Kyverno's functions through the instance's function table, with its argument checks", () => {
    const jp = createJmespath({ clock: { now: () => new Date("2026-01-01T00:00:00Z").getTime() } });
    expect(jp.search("to_upper(a)", { a: "abc" })).toEqual({ ok: true, value: "ABC" });
    expect(jp.search("spec.containers[].name | join(',', @)", DATA[13] as never)).toEqual({
      ok: true,
      value: "a,b",
    });
    const wrong = jp.search("to_upper(`1`)", {});
    expect(wrong.ok).toBe(false);
  });
});
