import type { LineOutcome } from "../run/judge.js";

function escapeXml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;")
    .split("")
    .filter((c) => {
      const code = c.charCodeAt(0);
      return code >= 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
    })
    .join("");
}

/** Name of a test case in JUnit output: `policy/rule/kind/resource`, leaving out empty parts. */
export function junitCaseName(o: LineOutcome): string {
  return [o.policy, o.rule, o.kind, o.resource].filter((p) => p !== "").join("/");
}

/**
 * Renders outcomes as JUnit XML: one `<testsuite>` per `kyverno-test.yaml`, one `<testcase>` per
 * (result line × resource), failures carrying the reason and the rule messages.
 */
export function renderJunit(outcomes: readonly LineOutcome[], seconds: number): string {
  const suites = new Map<string, LineOutcome[]>();
  for (const o of outcomes) {
    const list = suites.get(o.test);
    if (list) list.push(o);
    else suites.set(o.test, [o]);
  }
  const failures = outcomes.filter((o) => !o.ok).length;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="kyverno-ts test" tests="${outcomes.length}" failures="${failures}" time="${seconds.toFixed(3)}">`,
  ];
  for (const [test, list] of suites) {
    const suiteFailures = list.filter((o) => !o.ok).length;
    lines.push(`  <testsuite name="${escapeXml(test)}" tests="${list.length}" failures="${suiteFailures}">`);
    for (const o of list) {
      const open = `    <testcase name="${escapeXml(junitCaseName(o))}" classname="${escapeXml(test)}"`;
      if (o.ok) {
        lines.push(`${open}/>`);
        continue;
      }
      lines.push(`${open}>`);
      const detail = `expected: ${o.expected}\nactual: ${o.actual}${o.message ? `\nmessage: ${o.message}` : ""}`;
      lines.push(
        `      <failure message="${escapeXml(o.reason)}" type="${escapeXml(o.actual)}">${escapeXml(detail)}</failure>`,
      );
      lines.push("    </testcase>");
    }
    lines.push("  </testsuite>");
  }
  lines.push("</testsuites>", "");
  return lines.join("\n");
}
