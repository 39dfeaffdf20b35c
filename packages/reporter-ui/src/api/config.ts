/**
 * Where the API lives. By default the directory `index.html` was served from (same origin, and
 * any path prefix the reporter mounts the UI under); a `<meta name="policy-reporter-api">` that
 * the serving process injects, or `VITE_REPORTER_API` at build time, overrides it.
 */

/** Resolves the API base URL (always ending in `/`) from the document and build settings. */
export function resolveApiBaseUrl(doc: Document = document): string {
  const meta = doc.querySelector<HTMLMetaElement>('meta[name="policy-reporter-api"]')?.content;
  const configured = meta || import.meta.env.VITE_REPORTER_API || ".";
  const url = new URL(configured, doc.baseURI);
  url.search = "";
  url.hash = "";
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return url.toString();
}
