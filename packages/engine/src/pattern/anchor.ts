/**
 * Anchor syntax in pattern keys: `(key)`, `<(key)`, `=(key)`, `X(key)`, `^(key)` and `+(key)`.
 * The same grammar is used by validate patterns and by mutate overlays.
 */

/** The kind of anchor a pattern key carries; `plain` when it has none. */
export type AnchorKind =
  | "plain"
  | "conditional"
  | "global"
  | "equality"
  | "negation"
  | "existence"
  | "addIfNotPresent";

/** A pattern key split into its anchor kind and the bare resource key it names. */
export interface ParsedKey {
  readonly kind: AnchorKind;
  readonly key: string;
}

const CLOSE_PAREN = 0x29;
const ANCHOR = /^([+<=X^])?\((.+)\)$/s;

const MODIFIERS: Readonly<Record<string, AnchorKind>> = {
  "": "conditional",
  "<": "global",
  "=": "equality",
  X: "negation",
  "^": "existence",
  "+": "addIfNotPresent",
};

/**
 * Parses a pattern key such as `=(securityContext)` into `{ kind: "equality", key: "securityContext" }`.
 * Keys without an anchor come back as `{ kind: "plain", key }` unchanged.
 */
export function parseAnchor(patternKey: string): ParsedKey {
  // Every anchor ends with `)`: most keys are plain and need no regex.
  if (patternKey.charCodeAt(patternKey.length - 1) !== CLOSE_PAREN) return { kind: "plain", key: patternKey };
  const match = ANCHOR.exec(patternKey);
  if (match === null) return { kind: "plain", key: patternKey };
  const kind = MODIFIERS[match[1] ?? ""] ?? "plain";
  return { kind, key: match[2] ?? "" };
}

/** The bare key with any anchor removed, e.g. `X(hostPath)` → `hostPath`. */
export function stripAnchor(patternKey: string): string {
  return parseAnchor(patternKey).key;
}

/** Wraps a bare key in the anchor syntax of `kind`, e.g. (`negation`, `a/b`) → `X(a/b)`; the inverse of `parseAnchor`. */
export function anchorWrap(kind: AnchorKind, key: string): string {
  switch (kind) {
    case "plain":
      return key;
    case "conditional":
      return `(${key})`;
    case "global":
      return `<(${key})`;
    case "equality":
      return `=(${key})`;
    case "negation":
      return `X(${key})`;
    case "existence":
      return `^(${key})`;
    case "addIfNotPresent":
      return `+(${key})`;
  }
}

/** True when a pattern subtree contains any validate anchor; such sibling keys are checked first. */
export function hasNestedAnchors(pattern: unknown): boolean {
  if (Array.isArray(pattern)) return pattern.some(hasNestedAnchors);
  if (pattern === null || typeof pattern !== "object") return false;
  for (const [k, v] of Object.entries(pattern)) {
    const kind = parseAnchor(k).kind;
    if (kind !== "plain" && kind !== "addIfNotPresent") return true;
    if (hasNestedAnchors(v)) return true;
  }
  return false;
}
