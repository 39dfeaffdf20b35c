/**
 * A small YAML emitter for Kubernetes objects (JSON values) in block style, as `kubectl get -o yaml`
 * prints them: strings are plain when that is unambiguous, literal blocks when they span lines,
 * double-quoted otherwise. The output parses back to the same value (tested by parsing it back).
 */

/** A JSON value as decoded from the API server. */
export type YamlValue = null | boolean | number | string | YamlValue[] | { [key: string]: YamlValue };

const RESERVED = /^(?:true|false|yes|no|on|off|y|n|null|~|\.inf|-\.inf|\+\.inf|\.nan)$/i;
const NUMBERISH = /^[-+]?(?:\d[\d_:,]*)?(?:\.[\d_]*)?(?:[eE][-+]?\d+)?$|^0[xob]|^\d{4}-\d\d-\d\d/i;
const FIRST_INDICATOR = /^[-?:,[\]{}#&*!|>'"%@`\s]/;

/** Whether `s` can be written as a plain scalar without changing its meaning or type. */
function plain(s: string): boolean {
  if (s === "" || s !== s.trim()) return false;
  if (FIRST_INDICATOR.test(s) || RESERVED.test(s) || NUMBERISH.test(s)) return false;
  if (s.includes(": ") || s.includes(" #") || s.endsWith(":")) return false;
  // Control characters, line breaks, tabs and the BOM need escapes.
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f || c === 0xfeff || (c >= 0x80 && c <= 0x9f)) return false;
  }
  return true;
}

function quoted(s: string): string {
  return JSON.stringify(s);
}

/** A multi-line string as a literal block, or undefined when one cannot hold it exactly. */
function literal(s: string, indent: string): string | undefined {
  if (!s.includes("\n")) return undefined;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c < 0x20 && c !== 0x0a) || c === 0x7f || c === 0xfeff) return undefined;
  }
  const body = s.replace(/\n+$/, "");
  const trailing = s.length - body.length;
  const chomp = trailing === 0 ? "-" : trailing === 1 ? "" : "+";
  const lines = (trailing > 1 ? s.slice(0, -1) : body).split("\n");
  const first = lines.find((l) => l !== "") ?? "";
  const hint = first.startsWith(" ") ? "2" : "";
  const inner = `${indent}  `;
  return `|${hint}${chomp}\n${lines.map((l) => (l === "" ? "" : `${inner}${l}`)).join("\n")}`;
}

function scalar(value: null | boolean | number | string, indent: string): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : quoted(String(value));
  if (plain(value)) return value;
  return literal(value, indent) ?? quoted(value);
}

function key(k: string): string {
  return plain(k) ? k : quoted(k);
}

function isObject(value: YamlValue): value is { [key: string]: YamlValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function emit(value: YamlValue, indent: string, out: string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) {
      if (isObject(item) && Object.keys(item).length > 0) {
        const lines: string[] = [];
        emit(item, `${indent}  `, lines);
        out.push(`${indent}- ${(lines[0] ?? "").trimStart()}`, ...lines.slice(1));
      } else if (Array.isArray(item) && item.length > 0) {
        out.push(`${indent}-`);
        emit(item, `${indent}  `, out);
      } else {
        out.push(`${indent}- ${inline(item, indent)}`);
      }
    }
    return;
  }
  if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if ((isObject(v) && Object.keys(v).length > 0) || (Array.isArray(v) && v.length > 0)) {
        out.push(`${indent}${key(k)}:`);
        emit(v, `${indent}  `, out);
      } else {
        out.push(`${indent}${key(k)}: ${inline(v, indent)}`);
      }
    }
  }
}

function inline(value: YamlValue, indent: string): string {
  if (Array.isArray(value)) return "[]";
  if (isObject(value)) return "{}";
  return scalar(value, indent);
}

/** Renders a JSON value as a YAML document (ends with a newline). */
export function toYaml(value: YamlValue): string {
  if (!isObject(value) && !Array.isArray(value)) return `${scalar(value, "")}\n`;
  if ((isObject(value) && Object.keys(value).length === 0) || (Array.isArray(value) && value.length === 0))
    return `${inline(value, "")}\n`;
  const out: string[] = [];
  emit(value, "", out);
  return `${out.join("\n")}\n`;
}
