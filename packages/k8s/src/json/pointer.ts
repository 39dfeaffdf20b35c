/** RFC 6901 JSON pointers: `/a~1b/0` ↔ `["a/b", "0"]`. */

/** The reference tokens of a pointer (`""` is the whole document → `[]`); `undefined` if it does not start with `/`. */
export function parsePointer(pointer: string): string[] | undefined {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) return undefined;
  return pointer.slice(1).split("/").map(unescapeToken);
}

/** Joins a parent pointer and one unescaped token. */
export function appendPointer(pointer: string, token: string | number): string {
  return `${pointer}/${escapeToken(String(token))}`;
}

/** `~` → `~0`, `/` → `~1`. */
export function escapeToken(token: string): string {
  if (!token.includes("~") && !token.includes("/")) return token;
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** `~1` → `/`, then `~0` → `~` (in that order, as RFC 6901 requires). */
export function unescapeToken(token: string): string {
  if (!token.includes("~")) return token;
  return token.replaceAll("~1", "/").replaceAll("~0", "~");
}
