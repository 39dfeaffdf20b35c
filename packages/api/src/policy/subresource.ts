/** The subresource a `resources.kinds` entry names, in any of Kyverno's kind spellings. */

const VERSION = /^(\*|v\d+((alpha|beta)\d*)?)$/;
const STARTS_UPPER = /^[A-Z]/;
const STARTS_LOWER = /^[a-z]/;

/** `Kind.sub` is the dotted spelling of `Kind/sub`: kinds never contain dots. */
function dotted(kind: string): string {
  const dot = kind.indexOf(".");
  return dot < 0 ? "" : kind.slice(dot + 1);
}

/**
 * The subresource of a kind selector (`Pod/exec`, `apps/v1/Deployment/scale`, `*\/scale`, `Pod.status`),
 * `*` for `*\/*`, or empty when it names the main resource. Reads the spellings as the engine's kind
 * parser does.
 */
export function subresourceOf(selector: string): string {
  const parts = selector.split("/");
  const [a = "", b = "", c = "", d = ""] = parts;
  switch (parts.length) {
    case 1:
      return dotted(a);
    case 2:
      if (a === "*" && b === "*") return "*";
      if (a === "*" && STARTS_LOWER.test(b)) return b;
      if (VERSION.test(a)) return dotted(b);
      return b;
    case 3:
      if (VERSION.test(a) && !STARTS_UPPER.test(c)) return c;
      return dotted(c);
    case 4:
      return d;
    default:
      return "";
  }
}
