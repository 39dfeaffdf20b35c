import type { JsonObject } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { createStore } from "../store/store.js";
import { createAuthenticator } from "./authenticator.js";
import { createTokenSigner } from "./jwt.js";
import { API_AUDIENCE, createServiceAccountTokens } from "./service-account-tokens.js";

function setup() {
  const store = createStore();
  let now = new Date("2025-06-01T12:00:00Z");
  const signer = createTokenSigner();
  const tokens = createServiceAccountTokens({ signer, store, now: () => now, newId: () => "jti-1" });
  const sa = store.create("serviceaccounts", {
    kind: "ServiceAccount",
    metadata: { name: "bot", namespace: "prod", uid: "uid-1" },
  });
  return { store, signer, tokens, sa, setNow: (d: Date) => (now = d) };
}

const oneHour = { audiences: [API_AUDIENCE], expirationSeconds: 3600 };

describe("service account tokens", () => {
  it("authenticates a bound token as the service account with its groups", () => {
    const { tokens, sa } = setup();
    const { token, expiration } = tokens.issue(sa, oneHour);
    expect(expiration.toISOString()).toBe("2025-06-01T13:00:00.000Z");
    expect(tokens.authenticate(token)).toEqual({
      ok: true,
      audiences: [API_AUDIENCE],
      user: {
        username: "system:serviceaccount:prod:bot",
        uid: "uid-1",
        groups: ["system:serviceaccounts", "system:serviceaccounts:prod", "system:authenticated"],
        extra: { "authentication.kubernetes.io/credential-id": ["JTI=jti-1"] },
      },
    });
  });

  it("rejects an expired token", () => {
    const { tokens, sa, setNow } = setup();
    const { token } = tokens.issue(sa, oneHour);
    setNow(new Date("2025-06-01T13:00:01Z"));
    expect(tokens.authenticate(token)).toEqual({ ok: false, error: "service account token has expired" });
  });

  it("does not recognise a token signed with another key, or a tampered one", () => {
    const { tokens, sa, store } = setup();
    const other = createServiceAccountTokens({
      signer: createTokenSigner(),
      store,
      now: () => new Date("2025-06-01T12:00:00Z"),
      newId: () => "x",
    });
    expect(tokens.authenticate(other.issue(sa, oneHour).token)).toBeUndefined();
    const [head, , sig] = tokens.issue(sa, oneHour).token.split(".");
    const forged = Buffer.from(JSON.stringify({ iss: API_AUDIENCE, sub: "system:admin" })).toString(
      "base64url",
    );
    expect(tokens.authenticate(`${head}.${forged}.${sig}`)).toBeUndefined();
    expect(tokens.authenticate("not-a-jwt")).toBeUndefined();
  });

  it("rejects the token of a deleted or recreated service account", () => {
    const { tokens, sa, store } = setup();
    const { token } = tokens.issue(sa, oneHour);
    store.remove("serviceaccounts", "prod", "bot");
    expect(tokens.authenticate(token)).toEqual({ ok: false, error: 'serviceaccounts "bot" not found' });
    store.create("serviceaccounts", {
      kind: "ServiceAccount",
      metadata: { name: "bot", namespace: "prod", uid: "uid-2" },
    });
    expect(tokens.authenticate(token)).toEqual({
      ok: false,
      error: "service account UID (uid-2) does not match claim (uid-1)",
    });
  });

  it("checks audiences and bound objects", () => {
    const { tokens, sa, store } = setup();
    const vault = tokens.issue(sa, { audiences: ["vault"], expirationSeconds: 600 }).token;
    expect(tokens.authenticate(vault)).toMatchObject({ ok: false });
    expect(tokens.authenticate(vault, ["vault"])).toMatchObject({ ok: true, audiences: ["vault"] });
    const secret = store.create("secrets", {
      kind: "Secret",
      metadata: { name: "s", namespace: "prod", uid: "s-1" },
    });
    const bound = tokens.issue(sa, {
      ...oneHour,
      boundObject: { kind: "Secret", name: "s", uid: "s-1" },
    }).token;
    expect(tokens.authenticate(bound)).toMatchObject({ ok: true });
    store.remove("secrets", "prod", "s");
    expect(tokens.authenticate(bound)).toEqual({ ok: false, error: 'secrets "s" not found' });
    expect(secret).toBeDefined();
  });

  it("accepts a legacy token only while its Secret holds it", () => {
    const { tokens, sa, store } = setup();
    const secret: JsonObject = { kind: "Secret", metadata: { name: "bot-token", namespace: "prod" } };
    const token = tokens.legacy(sa, secret);
    expect(tokens.authenticate(token)).toEqual({ ok: false, error: 'secrets "bot-token" not found' });
    store.create("secrets", { ...secret, data: { token: Buffer.from(token).toString("base64") } });
    expect(tokens.authenticate(token)).toMatchObject({
      ok: true,
      user: { username: "system:serviceaccount:prod:bot" },
    });
  });

  it("keeps working with the same key after a restart (PEM round trip)", () => {
    const { signer, store, sa } = setup();
    const first = createServiceAccountTokens({
      signer,
      store,
      now: () => new Date("2025-06-01T12:00:00Z"),
      newId: () => "a",
    });
    const restarted = createServiceAccountTokens({
      signer: createTokenSigner(signer.keyPem),
      store,
      now: () => new Date("2025-06-01T12:30:00Z"),
      newId: () => "b",
    });
    expect(restarted.authenticate(first.issue(sa, oneHour).token)).toMatchObject({ ok: true });
  });

  it("authenticates requests: static tokens, service account tokens, anonymous and invalid", () => {
    const { tokens, sa } = setup();
    const authenticator = createAuthenticator([{ username: "jane", token: "t-jane" }], tokens);
    expect(authenticator.authenticate("Bearer t-jane")).toMatchObject({
      kind: "user",
      user: { username: "jane" },
    });
    const token = tokens.issue(sa, oneHour).token;
    expect(authenticator.authenticate(`Bearer ${token}`)).toMatchObject({
      kind: "user",
      user: { username: "system:serviceaccount:prod:bot" },
    });
    expect(authenticator.authenticate(undefined)).toMatchObject({
      kind: "anonymous",
      user: { username: "system:anonymous", groups: ["system:unauthenticated"] },
    });
    expect(authenticator.authenticate("Bearer nope")).toEqual({ kind: "invalid" });
  });
});
