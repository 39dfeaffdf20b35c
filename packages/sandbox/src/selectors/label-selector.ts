/**
 * The label selector string syntax of list/watch requests (`app=web,tier!=db,env in (a,b),!legacy`),
 * parsed once per request into requirements and matched against an object's labels.
 */

/** One parsed requirement; `values` is empty for exists / does-not-exist. */
export interface LabelRequirement {
  key: string;
  operator: "=" | "!=" | "in" | "notin" | "exists" | "!" | "gt" | "lt";
  values: string[];
}

/** A parsed selector: every requirement must hold (an empty selector matches everything). */
export interface LabelSelectorQuery {
  requirements: LabelRequirement[];
}

/** Parse result: the selector, or the reason it is not valid (sent as a 400). */
export type ParsedLabelSelector = { ok: true; selector: LabelSelectorQuery } | { ok: false; error: string };

const KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

/** Parses the `labelSelector` query parameter with the full Kubernetes syntax. */
export function parseLabelSelector(text: string): ParsedLabelSelector {
  const requirements: LabelRequirement[] = [];
  for (const part of splitTopLevel(text)) {
    const trimmed = part.trim();
    if (trimmed === "") {
      if (text.trim() === "") continue;
      return { ok: false, error: `unable to parse requirement: found '', expected: identifier` };
    }
    const parsed = parseRequirement(trimmed);
    if (typeof parsed === "string") return { ok: false, error: parsed };
    requirements.push(parsed);
  }
  return { ok: true, selector: { requirements } };
}

function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of text) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      parts.push(current);
      current = "";
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

const SET = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/;
const COMPARE = /^([^=!<>\s]+)\s*(==|=|!=|>|<)\s*(.*)$/;

function parseRequirement(text: string): LabelRequirement | string {
  if (text.startsWith("!")) {
    const key = text.slice(1).trim();
    return checkKey(key) ?? { key, operator: "!", values: [] };
  }
  const set = SET.exec(text);
  if (set !== null) {
    const key = set[1] ?? "";
    const values = (set[3] ?? "").split(",").map((v) => v.trim());
    const bad = checkKey(key) ?? values.map(checkValue).find((e) => e !== undefined);
    if (bad !== undefined) return bad;
    return { key, operator: set[2] === "in" ? "in" : "notin", values };
  }
  const cmp = COMPARE.exec(text);
  if (cmp !== null) {
    const key = cmp[1] ?? "";
    const op = cmp[2] ?? "=";
    const value = (cmp[3] ?? "").trim();
    const bad = checkKey(key) ?? checkValue(value);
    if (bad !== undefined) return bad;
    if (op === ">" || op === "<") {
      if (!/^-?\d+$/.test(value))
        return `unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer`;
      return { key, operator: op === ">" ? "gt" : "lt", values: [value] };
    }
    return { key, operator: op === "!=" ? "!=" : "=", values: [value] };
  }
  if (/\s/.test(text))
    return `unable to parse requirement: found '${text.split(/\s+/)[1] ?? ""}', expected: in, notin, =, ==, !=, gt, lt`;
  return checkKey(text) ?? { key: text, operator: "exists", values: [] };
}

function checkKey(key: string): string | undefined {
  if (KEY.test(key) && key.length <= 317) return undefined;
  return `unable to parse requirement: key: Invalid value: "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`;
}

function checkValue(value: string): string | undefined {
  if (VALUE.test(value) && value.length <= 63) return undefined;
  return `unable to parse requirement: values[0][${value}]: Invalid value: "${value}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`;
}

/** Whether `labels` satisfy every requirement of the selector. */
export function matchesLabels(
  selector: LabelSelectorQuery,
  labels: Readonly<Record<string, string>>,
): boolean {
  return selector.requirements.every((r) => matchRequirement(r, labels));
}

function matchRequirement(r: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = labels[r.key];
  switch (r.operator) {
    case "=":
      return has && value === r.values[0];
    case "!=":
      return !has || value !== r.values[0];
    case "in":
      return has && value !== undefined && r.values.includes(value);
    case "notin":
      return !has || value === undefined || !r.values.includes(value);
    case "exists":
      return has;
    case "!":
      return !has;
    case "gt":
    case "lt": {
      if (!has || value === undefined || !/^-?\d+$/.test(value)) return false;
      const n = Number(value);
      const bound = Number(r.values[0]);
      return r.operator === "gt" ? n > bound : n < bound;
    }
  }
}
