/**
 * CEL's optional syntax (`a.?b`, `a[?k]`, `[?x]`, `{?k: v}`), which `@bufbuild/cel`'s parser does
 * not accept, rewritten into calls of the optional library before parsing: `a.?b` becomes
 * `a.optSelect__("b")`, `a[?k]` becomes `a.optIndex__(k)`, an optional list element `?x` becomes
 * `optEntry__(x)` inside `optList__([...])`, and an optional map entry `?k: v` becomes
 * `k: optEntry__(v)` inside `optMap__({...})`. Strings and comments are left untouched.
 */

interface Token {
  /** `ident`, `literal` (strings and numbers), `punct` (operators, brackets) or `space` (blanks, comments). */
  readonly type: "ident" | "literal" | "punct" | "space";
  readonly text: string;
}

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /(?:0[xX][0-9a-fA-F]+[uU]?|(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)[uU]?)/y;
const SPACE = /(?:\s+|\/\/[^\n]*)/y;

/** The length of a string literal starting at `i` (with optional r/b prefixes), or 0. */
function stringLength(src: string, i: number): number {
  let j = i;
  let raw = false;
  while (j < src.length && j - i < 2 && /[rRbB]/.test(src[j] ?? "")) {
    if (/[rR]/.test(src[j] ?? "")) raw = true;
    j++;
  }
  const q = src[j];
  if (q !== '"' && q !== "'") return 0;
  const triple = src.startsWith(q.repeat(3), j);
  const close = triple ? q.repeat(3) : q;
  j += close.length;
  while (j < src.length) {
    if (!raw && src[j] === "\\") {
      j += 2;
      continue;
    }
    if (src.startsWith(close, j)) return j + close.length - i;
    if (!triple && src[j] === "\n") return 0;
    j++;
  }
  return 0;
}

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const str = stringLength(src, i);
    if (str > 0) {
      out.push({ type: "literal", text: src.slice(i, i + str) });
      i += str;
      continue;
    }
    let m: RegExpExecArray | null = null;
    for (const [re, type] of [
      [SPACE, "space"],
      [IDENT, "ident"],
      [NUMBER, "literal"],
    ] as const) {
      re.lastIndex = i;
      m = re.exec(src);
      if (m !== null && m[0].length > 0) {
        out.push({ type, text: m[0] });
        i += m[0].length;
        break;
      }
      m = null;
    }
    if (m !== null) continue;
    out.push({ type: "punct", text: src[i] ?? "" });
    i++;
  }
  return out;
}

/** What an open bracket is, to tell an optional element from an optional index. */
type Open = "index" | "list" | "map" | "paren" | "message";

/** Whether the token before a `[` / `{` ends an operand (so `[` indexes and `{` builds a message). */
function endsOperand(token: Token | undefined): boolean {
  if (token === undefined) return false;
  if (token.type === "ident" || token.type === "literal") return true;
  return token.text === ")" || token.text === "]" || token.text === "}";
}

/** True when the expression uses optional syntax and needs `rewriteOptionalSyntax`. */
function hasOptionalSyntax(src: string): boolean {
  return src.includes("?");
}

/** Rewrites CEL's optional syntax into library calls the parser accepts (see the module comment). */
export function rewriteOptionalSyntax(src: string): string {
  if (!hasOptionalSyntax(src)) return src;
  const tokens = tokenize(src);
  const out: string[] = [];
  const stack: Array<{ open: Open; close: string }> = [];
  let previous: Token | undefined;
  let pendingMapValue = false;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    if (t.type === "space") {
      out.push(t.text);
      continue;
    }
    const next = nextSolid(tokens, i + 1);
    if (t.text === "." && next?.token.text === "?") {
      const name = nextSolid(tokens, next.index + 1);
      if (name?.token.type === "ident") {
        out.push(`.optSelect__(${JSON.stringify(name.token.text)})`);
        i = name.index;
        previous = { type: "punct", text: ")" };
        continue;
      }
    }
    if (t.text === "[" || t.text === "{") {
      const operand = endsOperand(previous);
      const open: Open = t.text === "[" ? (operand ? "index" : "list") : operand ? "message" : "map";
      if (open === "index" && next?.token.text === "?") {
        out.push(".optIndex__(");
        stack.push({ open, close: ")" });
        i = next.index;
      } else if ((open === "list" || open === "map") && literalHasOptional(tokens, i)) {
        out.push(open === "list" ? "optList__([" : "optMap__({");
        stack.push({ open, close: open === "list" ? "])" : "})" });
      } else {
        out.push(t.text);
        stack.push({ open, close: t.text === "[" ? "]" : "}" });
      }
      previous = t;
      continue;
    }
    if (t.text === "(") {
      stack.push({ open: "paren", close: ")" });
      out.push(t.text);
      previous = t;
      continue;
    }
    if (t.text === ")" || t.text === "]" || t.text === "}") {
      const top = stack.pop();
      out.push(top?.close ?? t.text);
      previous = t;
      continue;
    }
    if (t.text === "?" && (previous?.text === "[" || previous?.text === "{" || previous?.text === ",")) {
      const top = stack.at(-1);
      if (top?.open === "list") {
        i = wrapEntry(tokens, i + 1, out);
        previous = { type: "punct", text: ")" };
        continue;
      }
      if (top?.open === "map") {
        // `?key: value`: the key stays, the value is wrapped.
        previous = { type: "punct", text: "?" };
        pendingMapValue = true;
        continue;
      }
    }
    if (t.text === ":" && pendingMapValue && stack.at(-1)?.open === "map") {
      out.push(":");
      i = wrapEntry(tokens, i + 1, out);
      pendingMapValue = false;
      previous = { type: "punct", text: ")" };
      continue;
    }
    out.push(t.text);
    previous = t;
  }
  return out.join("");
}

function nextSolid(tokens: readonly Token[], from: number): { token: Token; index: number } | undefined {
  for (let j = from; j < tokens.length; j++) {
    const t = tokens[j] as Token;
    if (t.type !== "space") return { token: t, index: j };
  }
  return undefined;
}

/** Whether the list or map literal opening at `index` has an optional entry (`?` after `[`, `{` or `,`). */
function literalHasOptional(tokens: readonly Token[], index: number): boolean {
  let depth = 0;
  let previous = "";
  for (let j = index; j < tokens.length; j++) {
    const t = tokens[j] as Token;
    if (t.type === "space") continue;
    if (t.text === "(" || t.text === "[" || t.text === "{") depth++;
    else if (t.text === ")" || t.text === "]" || t.text === "}") {
      depth--;
      if (depth === 0) return false;
    } else if (t.text === "?" && depth === 1 && (previous === "[" || previous === "{" || previous === ","))
      return true;
    previous = t.text;
  }
  return false;
}

/**
 * Copies one list element or map value starting at `from`, wrapped in `optEntry__(...)`, up to the
 * `,` or closing bracket at its level; returns the index of its last token.
 */
function wrapEntry(tokens: readonly Token[], from: number, out: string[]): number {
  const inner: Token[] = [];
  let depth = 0;
  let j = from;
  for (; j < tokens.length; j++) {
    const t = tokens[j] as Token;
    if (t.type !== "space") {
      if (t.text === "(" || t.text === "[" || t.text === "{") depth++;
      else if (t.text === ")" || t.text === "]" || t.text === "}") {
        if (depth === 0) break;
        depth--;
      } else if (t.text === "," && depth === 0) break;
    }
    inner.push(t);
  }
  out.push(`optEntry__(${rewriteOptionalSyntax(inner.map((t) => t.text).join(""))})`);
  return j - 1;
}
