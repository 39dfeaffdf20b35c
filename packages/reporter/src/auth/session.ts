/**
 * Signed session tokens for cookies: `base64url(JSON payload).base64url(HMAC-SHA256)`, the expiry
 * inside the signed payload, so a token cannot be extended or altered without the key. Used for
 * the login session and for the short-lived OpenID Connect transaction (state, nonce, PKCE verifier).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** Who is signed in. */
export interface SessionUser {
  /** Subject (`sub` of the ID token, or the basic-auth username). */
  sub: string;
  /** Display name (`name`, else `preferred_username`, else the email or subject). */
  name: string;
  email: string;
  groups: string[];
  /** How the user signed in. */
  method: "oidc" | "basic";
}

/** Encodes and verifies signed, expiring payloads. */
export interface TokenCodec<T> {
  /** A token for `value`, valid for `maxAgeSeconds` (default the codec's) from now. */
  encode(value: T, maxAgeSeconds?: number): string;
  /** The value, or undefined when the token is malformed, forged, or expired. */
  decode(token: string | undefined): T | undefined;
}

/** Options of {@link createTokenCodec}. */
export interface TokenCodecOptions<T> {
  /** The HMAC key (at least 16 characters is advisable; see {@link sessionSecret}). */
  secret: string;
  /** Default lifetime in seconds. */
  maxAgeSeconds: number;
  /** Distinguishes token purposes: a session token is no transaction token and vice versa. */
  purpose: string;
  /** Checks the shape of a decoded value. */
  validate: (value: unknown) => value is T;
  /** Milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
}

function sign(secret: string, purpose: string, payload: string): Buffer {
  return createHmac("sha256", secret).update(`${purpose}.${payload}`).digest();
}

/** Creates a codec; nothing is stored on the server. */
export function createTokenCodec<T>(options: TokenCodecOptions<T>): TokenCodec<T> {
  const now = options.now ?? Date.now;
  if (options.secret === "") throw new Error("session secret must not be empty");
  return {
    encode(value, maxAgeSeconds = options.maxAgeSeconds) {
      const exp = Math.floor(now() / 1000) + maxAgeSeconds;
      const payload = Buffer.from(JSON.stringify({ v: value, exp })).toString("base64url");
      return `${payload}.${sign(options.secret, options.purpose, payload).toString("base64url")}`;
    },
    decode(token) {
      if (!token) return undefined;
      const dot = token.indexOf(".");
      if (dot <= 0) return undefined;
      const payload = token.slice(0, dot);
      const given = Buffer.from(token.slice(dot + 1), "base64url");
      const expected = sign(options.secret, options.purpose, payload);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
      } catch {
        return undefined;
      }
      if (typeof parsed !== "object" || parsed === null) return undefined;
      const { v, exp } = parsed as { v?: unknown; exp?: unknown };
      if (typeof exp !== "number" || exp * 1000 <= now()) return undefined;
      return options.validate(v) ? v : undefined;
    },
  };
}

const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");

/** Whether `value` is a {@link SessionUser}. */
export function isSessionUser(value: unknown): value is SessionUser {
  if (typeof value !== "object" || value === null) return false;
  const u = value as Record<string, unknown>;
  return (
    typeof u.sub === "string" &&
    typeof u.name === "string" &&
    typeof u.email === "string" &&
    isStringList(u.groups) &&
    (u.method === "oidc" || u.method === "basic")
  );
}

/** The configured secret, or a random one (sessions then end when the process does). */
export function sessionSecret(configured: string): { secret: string; generated: boolean } {
  if (configured !== "") return { secret: configured, generated: false };
  return { secret: randomBytes(32).toString("base64url"), generated: true };
}

/** `GET /profile`: the signed-in user, for the dashboard (empty strings when nobody is). */
export interface UserProfile {
  name: string;
  email: string;
  groups: string[];
  method: SessionUser["method"] | "";
}
