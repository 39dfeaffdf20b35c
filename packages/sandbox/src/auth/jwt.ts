/**
 * Compact JWS (ES256) signing and verification of service account tokens with one P-256 key, as
 * kube-apiserver signs them with `--service-account-signing-key-file`. The key is kept as PKCS#8 PEM
 * so a data directory can hold it and tokens survive a restart.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from "node:crypto";
import type { JsonObject, JsonValue } from "@kyverno-ts/api";

/** Signs and verifies tokens with one key. */
export interface TokenSigner {
  /** The private key as PKCS#8 PEM (to persist it). */
  keyPem: string;
  /** The compact JWS of `claims`. */
  sign(claims: JsonObject): string;
  /** The claims of a token signed by this key, or `undefined` (malformed, other key, bad signature). */
  verify(token: string): JsonObject | undefined;
}

const b64 = (data: Buffer | string): string => Buffer.from(data).toString("base64url");

/** A signer with a new key, or with `keyPem` (PKCS#8 PEM of a P-256 key). */
export function createTokenSigner(keyPem?: string): TokenSigner {
  let privateKey: KeyObject;
  if (keyPem === undefined) privateKey = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey;
  else privateKey = createPrivateKey(keyPem);
  const publicKey = createPublicKey(privateKey);
  const kid = b64(
    createHash("sha256")
      .update(publicKey.export({ type: "spki", format: "der" }))
      .digest(),
  );
  const header = b64(JSON.stringify({ alg: "ES256", kid }));
  return {
    keyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    sign(claims) {
      const payload = `${header}.${b64(JSON.stringify(claims))}`;
      const signature = sign("sha256", Buffer.from(payload), { key: privateKey, dsaEncoding: "ieee-p1363" });
      return `${payload}.${b64(signature)}`;
    },
    verify(token) {
      const parts = token.split(".");
      if (parts.length !== 3) return undefined;
      const [head, body, signature] = parts as [string, string, string];
      try {
        const decodedHeader = JSON.parse(Buffer.from(head, "base64url").toString("utf8")) as JsonValue;
        if (typeof decodedHeader !== "object" || decodedHeader === null || Array.isArray(decodedHeader))
          return undefined;
        if (decodedHeader.alg !== "ES256") return undefined;
        const ok = verify(
          "sha256",
          Buffer.from(`${head}.${body}`),
          { key: publicKey, dsaEncoding: "ieee-p1363" },
          Buffer.from(signature, "base64url"),
        );
        if (!ok) return undefined;
        const claims = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as JsonValue;
        return typeof claims === "object" && claims !== null && !Array.isArray(claims) ? claims : undefined;
      } catch {
        return undefined;
      }
    },
  };
}
