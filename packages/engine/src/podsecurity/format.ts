import { type ContainerView, containerRef, type VolumeView } from "./pod-view.js";
import type { PssFinding } from "./types.js";

/** Upstream's `joinQuote`: `"a", "b"` (no escaping), `""` for an empty list. */
export function joinQuote(items: readonly string[]): string {
  return items.length === 0 ? "" : `"${items.join('", "')}"`;
}

/** Upstream's `pluralize`: the singular form for a count of one. */
export function pluralize(singular: string, plural: string, count: number): string {
  return count === 1 ? singular : plural;
}

/** The distinct strings sorted, as Go's `sets.String.List()` returns them. */
export function sortedSet(items: Iterable<string>): string[] {
  return [...new Set(items)].sort();
}

/** `container "a"` / `containers "a", "b"`: the phrase upstream builds for a list of container names. */
export function containersPhrase(names: readonly string[]): string {
  return `${pluralize("container", "containers", names.length)} ${joinQuote(names)}`;
}

/** Go's `%q` for the ASCII range (escapes, `\xNN` for other control bytes); other characters are kept. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0;
    const escaped = GO_ESCAPES[ch];
    if (escaped !== undefined) out += escaped;
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

const GO_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  "\\": "\\\\",
  "\x07": "\\a",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\v": "\\v",
};

/** A pod-level finding. */
export function podFinding(restrictedField: string, values: string[]): PssFinding {
  return { restrictedField, values };
}

/** A container-level finding on `spec.<kind>[*].<path>` (`spec.<kind>[<index>].<path>` in messages). */
export function containerFinding(c: ContainerView, path: string, values: string[]): PssFinding {
  return {
    restrictedField: `spec.${c.kind}[*].${path}`,
    field: `spec.${c.kind}[${c.index}].${path}`,
    container: containerRef(c),
    values,
  };
}

/** A finding on one volume: `restrictedField` is `spec.volumes[*]<suffix>`, the message field indexed. */
export function volumeFinding(v: VolumeView, suffix: string, values: string[]): PssFinding {
  return { restrictedField: `spec.volumes[*]${suffix}`, field: `spec.volumes[${v.index}]${suffix}`, values };
}
