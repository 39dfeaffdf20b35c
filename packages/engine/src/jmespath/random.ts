/**
 * `random(regex)`: generates a string matching an RE2 pattern, like the goregen library Kyverno uses.
 *
 * The pattern is first validated by re2js (so syntax errors read like Go's), then parsed here into a
 * small tree. Unbounded repeats (`*`, `+`, `{n,}`) add at most MAX_EXTRA_REPEATS copies, `.` and
 * negated classes draw from printable ASCII, anchors and word boundaries produce nothing. Output is
 * checked against maxStringLength while it is generated, so `(a{1000}){1000}` fails instead of allocating.
 */
import { randomBytes } from "node:crypto";
import { arg, ensureStringLength, type FunctionContext, type FunctionDef } from "./context.js";
import { functionError } from "./errors.js";
import { compileRegex } from "./regex.js";

const MAX_EXTRA_REPEATS = 10;

type Node =
  | { kind: "literal"; text: string }
  | { kind: "set"; ranges: Array<[number, number]>; negated: boolean }
  | { kind: "concat"; items: Node[] }
  | { kind: "alt"; options: Node[] }
  | { kind: "repeat"; node: Node; min: number; max: number };

const PRINTABLE: Array<[number, number]> = [[0x20, 0x7e]];
const DIGIT: Array<[number, number]> = [[0x30, 0x39]];
const WORD: Array<[number, number]> = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
const SPACE: Array<[number, number]> = [
  [0x09, 0x0a],
  [0x0c, 0x0d],
  [0x20, 0x20],
];
const POSIX: Record<string, Array<[number, number]>> = {
  alnum: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  alpha: [
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  ascii: [[0x00, 0x7f]],
  blank: [
    [0x09, 0x09],
    [0x20, 0x20],
  ],
  cntrl: [
    [0x00, 0x1f],
    [0x7f, 0x7f],
  ],
  digit: DIGIT,
  graph: [[0x21, 0x7e]],
  lower: [[0x61, 0x7a]],
  print: PRINTABLE,
  punct: [
    [0x21, 0x2f],
    [0x3a, 0x40],
    [0x5b, 0x60],
    [0x7b, 0x7e],
  ],
  space: [
    [0x09, 0x0d],
    [0x20, 0x20],
  ],
  upper: [[0x41, 0x5a]],
  word: WORD,
  xdigit: [
    [0x30, 0x39],
    [0x41, 0x46],
    [0x61, 0x66],
  ],
};
const ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", f: "\f", v: "\v", a: "\x07" };

class Parser {
  pos = 0;
  constructor(readonly src: string) {}

  peek(): string | undefined {
    return this.src[this.pos];
  }

  parseAlt(): Node {
    const options = [this.parseConcat()];
    while (this.peek() === "|") {
      this.pos++;
      options.push(this.parseConcat());
    }
    return options.length === 1 ? (options[0] as Node) : { kind: "alt", options };
  }

  parseConcat(): Node {
    const items: Node[] = [];
    for (let c = this.peek(); c !== undefined && c !== "|" && c !== ")"; c = this.peek()) {
      const atom = this.parseAtom();
      if (atom !== undefined) items.push(this.parseRepeat(atom));
    }
    return { kind: "concat", items };
  }

  parseRepeat(atom: Node): Node {
    let node = atom;
    for (;;) {
      const c = this.peek();
      let min: number;
      let max: number;
      if (c === "*") [min, max] = [0, MAX_EXTRA_REPEATS];
      else if (c === "+") [min, max] = [1, 1 + MAX_EXTRA_REPEATS];
      else if (c === "?") [min, max] = [0, 1];
      else if (c === "{") {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.pos));
        if (m === null) return node;
        min = Number(m[1]);
        max = m[2] === undefined ? min : m[3] === "" ? min + MAX_EXTRA_REPEATS : Number(m[3]);
        this.pos += m[0].length - 1;
      } else return node;
      this.pos++;
      if (this.peek() === "?") this.pos++;
      node = { kind: "repeat", node, min, max };
    }
  }

  parseAtom(): Node | undefined {
    const c = this.src[this.pos++] ?? "";
    if (c === "(") return this.parseGroup();
    if (c === "[") return this.parseClass();
    if (c === ".") return { kind: "set", ranges: PRINTABLE, negated: false };
    if (c === "^" || c === "$") return undefined;
    if (c === "\\") return this.parseEscape();
    const cp = this.src.codePointAt(this.pos - 1) ?? 0;
    if (cp > 0xffff) this.pos++;
    return { kind: "literal", text: String.fromCodePoint(cp) };
  }

  parseGroup(): Node | undefined {
    if (this.peek() === "?") {
      const flags = /^\?(?:P?<[^>]*>|[imsU-]*:|[imsU-]*\))/.exec(this.src.slice(this.pos));
      if (flags === null) throw new Error("unsupported group");
      this.pos += flags[0].length;
      if (flags[0].endsWith(")")) return undefined;
    }
    const inner = this.parseAlt();
    this.pos++; // ")"
    return inner;
  }

  escapeRanges(c: string): Array<[number, number]> | { negated: Array<[number, number]> } | undefined {
    if (c === "d") return DIGIT;
    if (c === "w") return WORD;
    if (c === "s") return SPACE;
    if (c === "D") return { negated: DIGIT };
    if (c === "W") return { negated: WORD };
    if (c === "S") return { negated: SPACE };
    return undefined;
  }

  escapedChar(c: string): number {
    if (c === "x") {
      const m = /^(?:\{([0-9a-fA-F]+)\}|([0-9a-fA-F]{2}))/.exec(this.src.slice(this.pos));
      if (m === null) throw new Error("bad escape");
      this.pos += m[0].length;
      return Number.parseInt(m[1] ?? m[2] ?? "0", 16);
    }
    if (/[0-7]/.test(c)) {
      const m = /^[0-7]{0,2}/.exec(this.src.slice(this.pos));
      this.pos += m?.[0].length ?? 0;
      return Number.parseInt(c + (m?.[0] ?? ""), 8);
    }
    return (ESCAPES[c] ?? c).codePointAt(0) ?? 0;
  }

  parseEscape(): Node | undefined {
    const c = this.src[this.pos++] ?? "";
    if ("AzbB".includes(c)) return undefined;
    if (c === "Q") {
      const end = this.src.indexOf("\\E", this.pos);
      const text = this.src.slice(this.pos, end < 0 ? undefined : end);
      this.pos = end < 0 ? this.src.length : end + 2;
      return { kind: "literal", text };
    }
    if (c === "p" || c === "P") throw new Error("Unicode classes are not supported by random()");
    const ranges = this.escapeRanges(c);
    if (ranges !== undefined) {
      return Array.isArray(ranges)
        ? { kind: "set", ranges, negated: false }
        : { kind: "set", ranges: ranges.negated, negated: true };
    }
    return { kind: "literal", text: String.fromCodePoint(this.escapedChar(c)) };
  }

  parseClass(): Node {
    const negated = this.peek() === "^";
    if (negated) this.pos++;
    const ranges: Array<[number, number]> = [];
    let first = true;
    while (this.pos < this.src.length && (this.peek() !== "]" || first)) {
      first = false;
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(this.src.slice(this.pos));
      if (posix !== null) {
        if (posix[1] === "^") throw new Error("negated POSIX classes are not supported by random()");
        ranges.push(...(POSIX[posix[2] ?? ""] ?? []));
        this.pos += posix[0].length;
        continue;
      }
      const low = this.classChar(ranges);
      if (low === undefined) continue;
      if (this.peek() === "-" && this.src[this.pos + 1] !== "]") {
        this.pos++;
        const high = this.classChar(ranges) ?? low;
        ranges.push([low, high]);
      } else ranges.push([low, low]);
    }
    this.pos++; // "]"
    return { kind: "set", ranges, negated };
  }

  /** One class member; shorthand escapes (\d…) are pushed directly and return undefined. */
  classChar(ranges: Array<[number, number]>): number | undefined {
    const c = this.src[this.pos++] ?? "";
    if (c !== "\\") {
      const cp = this.src.codePointAt(this.pos - 1) ?? 0;
      if (cp > 0xffff) this.pos++;
      return cp;
    }
    const e = this.src[this.pos++] ?? "";
    const shorthand = this.escapeRanges(e);
    if (shorthand !== undefined) {
      if (!Array.isArray(shorthand))
        throw new Error("negated escapes inside classes are not supported by random()");
      ranges.push(...shorthand);
      return undefined;
    }
    return this.escapedChar(e);
  }
}

/** Uniform random integers in [0, n) from a buffered CSPRNG. */
function randomSource(): (n: number) => number {
  let buffer = randomBytes(1024);
  let offset = 0;
  return (n) => {
    if (n <= 1) return 0;
    if (offset + 4 > buffer.length) {
      buffer = randomBytes(1024);
      offset = 0;
    }
    const value = buffer.readUInt32BE(offset);
    offset += 4;
    return value % n;
  };
}

function setMembers(node: { ranges: Array<[number, number]>; negated: boolean }): Array<[number, number]> {
  if (!node.negated) return node.ranges;
  const out: Array<[number, number]> = [];
  for (let cp = 0x20; cp <= 0x7e; cp++) {
    if (!node.ranges.some(([lo, hi]) => cp >= lo && cp <= hi)) out.push([cp, cp]);
  }
  return out;
}

/** Generates a random string matching `pattern`, or throws a Kyverno-style error. */
export function randomFromRegex(ctx: FunctionContext, pattern: string): string {
  if (pattern === "") throw functionError("random", "no pattern provided");
  const valid = compileRegex(pattern);
  if (typeof valid === "string") throw functionError("random", valid);
  let tree: Node;
  try {
    tree = new Parser(pattern).parseAlt();
  } catch (thrown) {
    throw functionError("random", thrown instanceof Error ? thrown.message : "unsupported pattern");
  }
  const next = randomSource();
  const out: string[] = [];
  let length = 0;
  const emit = (text: string) => {
    length += text.length;
    ensureStringLength(ctx, "random", length);
    out.push(text);
  };
  let steps = 0;
  const generate = (node: Node): void => {
    // Repeats of empty nodes emit nothing but still cost time: bound the work too.
    if (++steps > 4 * ctx.maxStringLength)
      throw functionError("random", "pattern needs too much work to generate");
    switch (node.kind) {
      case "literal":
        emit(node.text);
        return;
      case "set": {
        const ranges = setMembers(node);
        const total = ranges.reduce((sum, [lo, hi]) => sum + hi - lo + 1, 0);
        if (total === 0) throw functionError("random", "character class matches nothing printable");
        let pick = next(total);
        for (const [lo, hi] of ranges) {
          if (pick <= hi - lo) {
            emit(String.fromCodePoint(lo + pick));
            return;
          }
          pick -= hi - lo + 1;
        }
        return;
      }
      case "concat":
        for (const item of node.items) generate(item);
        return;
      case "alt": {
        const option = node.options[next(node.options.length)];
        if (option !== undefined) generate(option);
        return;
      }
      case "repeat": {
        const count = node.min + next(node.max - node.min + 1);
        for (let i = 0; i < count; i++) generate(node.node);
        return;
      }
    }
  };
  generate(tree);
  return out.join("");
}

/** random. */
export const randomFunctions: readonly FunctionDef[] = [
  {
    name: "random",
    args: [arg("string")],
    returns: "string",
    description: "random string matching an RE2 pattern (unbounded repeats capped at 10 extra)",
    call: (a, ctx) => randomFromRegex(ctx, typeof a[0] === "string" ? a[0] : ""),
  },
];
