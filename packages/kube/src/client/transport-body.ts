/**
 * Reading the API server's responses: a whole JSON body (bounded in time), its admission warnings, or
 * a streamed body line by line for watches.
 */
import type { Readable } from "node:stream";
import { clientFailure, failureFromError, failureFromResponse } from "./failure.js";
import type { ResponseHead } from "./transport-h2.js";
import type { ApiFailure, ApiResult, WatchEnd } from "./types.js";

/** Receives the lines of a streamed response; `end` is called exactly once. */
export interface StreamSink {
  /** Returning a failure ends the stream with it (e.g. a line that is not JSON). */
  line(text: string): ApiFailure | undefined;
  end(outcome: WatchEnd): void;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const SPACE = 0x20;
const TAB = 0x09;
const CR = 0x0d;
const LF = 0x0a;
const HEADER_KEYS = new Set(["apiVersion", "kind", "metadata"]);

const isSpace = (c: number): boolean => c === SPACE || c === LF || c === CR || c === TAB;

/** The index after the string that starts (with its quote) at `i`: from quote to quote, escapes skipped. */
function stringEnd(text: string, i: number): number {
  let j = i + 1;
  for (;;) {
    const quote = text.indexOf('"', j);
    if (quote < 0) throw new SyntaxError("unterminated string");
    // The quote is escaped when an odd number of backslashes precede it.
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    j = quote + 1;
  }
}

/** The index after the JSON value that starts at `i` (strings and nesting skipped, nothing parsed). */
function valueEnd(text: string, i: number): number {
  const first = text.charCodeAt(i);
  if (first === QUOTE) return stringEnd(text, i);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    let j = i;
    while (j < text.length) {
      const c = text.charCodeAt(j);
      if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c)) break;
      j++;
    }
    return j;
  }
  let depth = 0;
  let j = i;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c === QUOTE) {
      j = stringEnd(text, j);
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) return j + 1;
    j++;
  }
  throw new SyntaxError("unterminated value");
}

const skipSpace = (text: string, i: number): number => {
  let j = i;
  while (j < text.length && isSpace(text.charCodeAt(j))) j++;
  return j;
};

/** What `scanHeader` answers for a prefix that does not settle the header. */
const INCOMPLETE: unique symbol = Symbol("incomplete");

/**
 * `decodeHeader` of a whole text (`whole`), or of a prefix of it: then INCOMPLETE unless the prefix
 * holds the three members, each ending before the prefix does (what the whole text would give then).
 */
function scanHeader(text: string, whole: boolean): unknown {
  const otherwise = (): unknown => (whole ? decode(text) : INCOMPLETE);
  try {
    let i = skipSpace(text, 0);
    if (text.charCodeAt(i) !== OPEN_BRACE) return otherwise();
    const out: Record<string, unknown> = {};
    let found = 0;
    i = skipSpace(text, i + 1);
    while (text.charCodeAt(i) === QUOTE) {
      const keyEnd = stringEnd(text, i);
      const key = text.slice(i + 1, keyEnd - 1);
      i = skipSpace(text, keyEnd);
      if (text.charCodeAt(i) !== COLON) return otherwise();
      const start = skipSpace(text, i + 1);
      const end = valueEnd(text, start);
      // A value reaching the end of a prefix may go on past it (a number, a cut character).
      if (!whole && end >= text.length) return INCOMPLETE;
      if (HEADER_KEYS.has(key)) {
        out[key] = JSON.parse(text.slice(start, end)) as unknown;
        if (++found === HEADER_KEYS.size) return out;
      }
      i = skipSpace(text, end);
      if (text.charCodeAt(i) !== COMMA) break;
      i = skipSpace(text, i + 1);
    }
    return whole ? out : INCOMPLETE;
  } catch {
    return otherwise();
  }
}

/**
 * `apiVersion`, `kind` and `metadata` of a JSON object's text, the other members skipped unparsed
 * (and the scan stopped once the three are found); the whole body decoded as `decode` does when the
 * text is not an object.
 */
export function decodeHeader(text: string): unknown {
  return scanHeader(text, true);
}

/**
 * How many bytes of a body `decodeHeaderOf` decodes first: the API server writes `apiVersion`, `kind`
 * and `metadata` first, and the metadata of a report or an Event is well under this.
 */
const HEADER_PREFIX_BYTES = 4096;

/** The text of a body read as chunks (`readChunks`). */
export function textOf(chunks: readonly Buffer[]): string {
  if (chunks.length === 1) return (chunks[0] as Buffer).toString("utf8");
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * `decodeHeader` of a body read as chunks, decoding only its first bytes to text when they hold the
 * header (an answer to a write is the whole object: a report's results are most of its bytes).
 */
export function decodeHeaderOf(chunks: readonly Buffer[]): unknown {
  const first = chunks[0];
  // A prefix: the first bytes of a long first chunk, or the whole first chunk of several.
  if (first !== undefined && (first.length > HEADER_PREFIX_BYTES || chunks.length > 1)) {
    const header = scanHeader(first.toString("utf8", 0, Math.min(first.length, HEADER_PREFIX_BYTES)), false);
    if (header !== INCOMPLETE) return header;
  }
  return decodeHeader(textOf(chunks));
}

/** A body as JSON; the text itself when it is not JSON; undefined when empty. */
export function decode(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Reads a whole body, giving up after `timeoutMs` or when the connection is lost. */
export async function readBody(res: Readable, timeoutMs: number): Promise<string | ApiFailure> {
  const chunks = await readChunks(res, timeoutMs);
  return Array.isArray(chunks) ? textOf(chunks) : chunks;
}

/** Reads a whole body as the chunks it came in (`readBody` undecoded). */
export function readChunks(res: Readable, timeoutMs: number): Promise<Buffer[] | ApiFailure> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let failure: ApiFailure | undefined;
    let ended = false;
    const timer = setTimeout(() => {
      failure = clientFailure(0, "Timeout", `the response body took more than ${timeoutMs} ms`);
      res.destroy();
    }, timeoutMs);
    res.on("data", (chunk: Buffer) => chunks.push(chunk));
    res.on("end", () => {
      ended = true;
    });
    res.on("error", (error) => {
      failure ??= failureFromError(error, false, false);
    });
    res.on("close", () => {
      clearTimeout(timer);
      if (ended) resolve(chunks);
      else resolve(failure ?? clientFailure(0, "Unreachable", "connection lost while reading the response"));
    });
  });
}

/**
 * The result of a whole response: its JSON on 2xx (with the admission warnings), else the failure.
 * `header`: of a 2xx answer only `apiVersion`, `kind` and `metadata` are decoded (`decodeHeader`).
 */
export function answerOf(
  head: ResponseHead,
  text: string | ApiFailure,
  decoding: "object" | "header" = "object",
): ApiResult<unknown> {
  if (typeof text !== "string") return text;
  const status = head.status;
  const ok = status >= 200 && status < 300;
  return settled(head, ok && decoding === "header" ? decodeHeader(text) : decode(text));
}

/**
 * `answerOf` of a body read as chunks (`readChunks`): a 2xx answer whose header only is wanted is
 * decoded from its first bytes when they hold it (`decodeHeaderOf`), the rest never made a string.
 */
export function answerOfChunks(
  head: ResponseHead,
  chunks: Buffer[] | ApiFailure,
  decoding: "object" | "header" = "object",
): ApiResult<unknown> {
  if (!Array.isArray(chunks)) return chunks;
  const status = head.status;
  if (status >= 200 && status < 300 && decoding === "header") return settled(head, decodeHeaderOf(chunks));
  return answerOf(head, textOf(chunks), decoding);
}

/** The result of a response whose body is decoded. */
function settled(head: ResponseHead, body: unknown): ApiResult<unknown> {
  const status = head.status;
  if (status < 200 || status >= 300) return failureFromResponse(status, body);
  if (typeof body === "string")
    return clientFailure(status, "BadResponse", `the response is not JSON: ${body.slice(0, 200)}`);
  const warnings = warningsOf(head.headers.warning);
  return warnings.length === 0
    ? { ok: true, status, value: body }
    : { ok: true, status, value: body, warnings };
}

/**
 * Hands a 200 streamed response to `sink` line by line, ending it (`abort`) after `timeoutMs` of
 * silence or at a line the sink refuses; returns the stop function.
 */
export function readLines(res: Readable, timeoutMs: number, sink: StreamSink, abort: () => void): () => void {
  let buffered = "";
  let stopped = false;
  let ended = false;
  let failure: ApiFailure | undefined;
  let idle: NodeJS.Timeout | undefined;
  const arm = (): void => {
    clearTimeout(idle);
    idle = setTimeout(() => {
      failure = clientFailure(0, "Timeout", `no data for ${timeoutMs} ms`);
      abort();
    }, timeoutMs);
  };
  arm();
  res.setEncoding("utf8");
  res.on("data", (chunk: string) => {
    arm();
    buffered += chunk;
    let newline = buffered.indexOf("\n");
    while (newline >= 0 && !stopped && failure === undefined) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      failure = line === "" ? undefined : sink.line(line);
      if (failure !== undefined) abort();
      newline = buffered.indexOf("\n");
    }
  });
  res.on("end", () => {
    ended = true;
  });
  res.on("error", (error) => {
    failure ??= failureFromError(error, false, false);
  });
  res.on("close", () => {
    clearTimeout(idle);
    if (stopped) sink.end({ reason: "stopped" });
    else if (failure !== undefined) sink.end({ reason: "failed", failure });
    else if (ended) sink.end({ reason: "closed" });
    else sink.end({ reason: "failed", failure: clientFailure(0, "Unreachable", "connection lost") });
  });
  return () => {
    stopped = true;
    abort();
  };
}

/**
 * The texts of RFC 7234 `Warning` headers (`299 - "text"`), as the API server sends admission
 * warnings; Node joins repeated headers with ", ", so the quoted texts are read one by one.
 */
export function warningsOf(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  const joined = Array.isArray(header) ? header.join(", ") : header;
  const out: string[] = [];
  const pattern = /\d{3} \S+ "((?:[^"\\]|\\.)*)"/g;
  for (const match of joined.matchAll(pattern)) out.push((match[1] ?? "").replace(/\\(.)/g, "$1"));
  return out;
}
