/**
 * The dashboard's side of the reporter's login: where the sign-in page is (with the current view
 * to come back to), and who is signed in (`GET profile`; a reporter without a login answers 404).
 */
import type { UserProfile } from "@kyverno-ts/reporter";

/** The sign-in page under the API base, returning to `hash` (a `#/…` route) afterwards. */
export function loginUrl(baseUrl: string, hash: string): string {
  const url = new URL("login", baseUrl);
  if (hash.startsWith("#/")) url.searchParams.set("returnTo", hash);
  return url.toString();
}

/** The sign-out endpoint under the API base (a POST ends the session). */
export function logoutUrl(baseUrl: string): string {
  return new URL("logout", baseUrl).toString();
}

/**
 * The signed-in user; null when the reporter has no login (404) or nobody is signed in. A 401 is
 * reported through `onUnauthorized` (the session ended).
 */
export async function fetchProfile(
  baseUrl: string,
  options: { fetch?: typeof fetch; signal?: AbortSignal; onUnauthorized?: () => void } = {},
): Promise<UserProfile | null> {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const res = await doFetch(new URL("profile", baseUrl), {
    headers: { accept: "application/json" },
    credentials: "same-origin",
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (res.status === 401) options.onUnauthorized?.();
  if (!res.ok) return null;
  const body = (await res.json()) as UserProfile;
  return body.name || body.email ? body : null;
}
