import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createApiServer } from "../api/server.js";
import { parseReporterConfig } from "../config/parse.js";
import { createStore } from "../store/connect.js";
import { registerUi } from "../ui/index.js";
import { injectApiMeta } from "../ui/serve.js";
import { accessControlsOf, allowedBy, isAllowed } from "./access.js";
import { defaultUiConfig, type UiConfig } from "./config.js";
import { groupsOf, userFromClaims } from "./oidc.js";
import { SESSION_COOKIE, safeReturnTo } from "./plugin.js";
import { createTokenCodec, isSessionUser, type SessionUser } from "./session.js";

const alice: SessionUser = {
  sub: "a1",
  name: "Alice",
  email: "Alice@Example.com",
  groups: ["platform"],
  method: "oidc",
};

function codec(now: () => number, secret = "s3cret-s3cret-s3cret", purpose = "session") {
  return createTokenCodec<SessionUser>({ secret, maxAgeSeconds: 60, purpose, validate: isSessionUser, now });
}

describe("session tokens", () => {
  it("round-trips a user until the token expires", () => {
    let t = 1_000_000;
    const c = codec(() => t);
    const token = c.encode(alice);
    expect(c.decode(token)).toEqual(alice);
    t += 59_000;
    expect(c.decode(token)).toEqual(alice);
    t += 1_000;
    expect(c.decode(token)).toBeUndefined();
    expect(c.decode(c.encode(alice, 3600))).toEqual(alice);
  });

  it("refuses altered, foreign and malformed tokens", () => {
    const c = codec(() => 0);
    const token = c.encode(alice);
    const [payload, sig] = token.split(".") as [string, string];
    const forged = Buffer.from(
      JSON.stringify({ v: { ...alice, groups: ["admins"] }, exp: 10 ** 10 }),
    ).toString("base64url");
    expect(c.decode(`${forged}.${sig}`)).toBeUndefined();
    expect(c.decode(`${payload}.${sig.slice(0, -2)}AA`)).toBeUndefined();
    expect(codec(() => 0, "another-secret-value").decode(token)).toBeUndefined();
    expect(codec(() => 0, "s3cret-s3cret-s3cret", "oidc-transaction").decode(token)).toBeUndefined();
    for (const bad of [undefined, "", "x", ".", "abc.def", `${payload}`])
      expect(c.decode(bad)).toBeUndefined();
    const notAUser = createTokenCodec<unknown>({
      secret: "s3cret-s3cret-s3cret",
      maxAgeSeconds: 60,
      purpose: "session",
      validate: (v): v is unknown => true,
      now: () => 0,
    }).encode({ sub: 1 });
    expect(c.decode(notAUser)).toBeUndefined();
    expect(() => codec(() => 0, "")).toThrow(/secret/);
  });
});

describe("access control", () => {
  it("allows everyone with empty lists, else a listed email (any case) or group", () => {
    expect(allowedBy({ emails: [], groups: [] }, alice)).toBe(true);
    expect(allowedBy({ emails: ["alice@example.com"], groups: [] }, alice)).toBe(true);
    expect(allowedBy({ emails: [], groups: ["platform", "sre"] }, alice)).toBe(true);
    expect(allowedBy({ emails: ["bob@example.com"], groups: ["sre"] }, alice)).toBe(false);
    expect(allowedBy({ emails: [""], groups: [] }, { email: "", groups: [] })).toBe(false);
  });

  it("applies the boards' list and this cluster's list, not other clusters'", () => {
    const ui: UiConfig = {
      ...defaultUiConfig(),
      name: "prod",
      boards: { accessControl: { emails: [], groups: ["platform", "dev"] } },
      clusters: [
        { name: "prod", accessControl: { emails: [], groups: ["platform"] } },
        { name: "dev", accessControl: { emails: ["nobody@example.com"], groups: [] } },
      ],
    };
    const controls = accessControlsOf(ui);
    expect(controls).toHaveLength(2);
    expect(isAllowed(alice, controls)).toBe(true);
    expect(isAllowed({ ...alice, groups: ["dev"] }, controls)).toBe(false);
    expect(isAllowed({ ...alice, groups: [], method: "basic" }, controls)).toBe(true);
  });
});

describe("claims and configuration", () => {
  it("reads users and groups from claims", () => {
    expect(groupsOf({ groups: ["a", 1, "b"] }, "groups")).toEqual(["a", "b"]);
    expect(groupsOf({ role: "admin" }, "role")).toEqual(["admin"]);
    expect(groupsOf({ realm_access: { roles: ["x"] } }, "realm_access.roles")).toEqual(["x"]);
    expect(groupsOf({ groups: ["a"] }, "")).toEqual([]);
    expect(userFromClaims({ sub: "s", preferred_username: "al", email: "a@x" }, "")).toEqual({
      sub: "s",
      name: "al",
      email: "a@x",
      groups: [],
      method: "oidc",
    });
    expect(safeReturnTo("#/resources/x?namespaces=shop")).toBe("#/resources/x?namespaces=shop");
    for (const bad of ["//evil.example", "https://evil.example", "#/a b", 3])
      expect(safeReturnTo(bad)).toBe("");
  });

  it("parses ui.* with upstream keys and validates them", () => {
    const { config } = parseReporterConfig({
      ui: {
        name: "prod",
        image: { tag: "ignored" },
        openIDConnect: {
          enabled: true,
          discoveryUrl: "https://idp.example/realms/x",
          callbackUrl: "https://reporter.example/callback",
          clientId: "policy-reporter",
          clientSecret: "s",
          groupClaim: "groups",
          scopes: ["openid", "groups"],
        },
        basicAuth: { username: "admin", password: "pw" },
        server: { sessions: { secret: "k", maxAge: 3600, storage: "filesystem" } },
        boards: { accessControl: { emails: ["a@example.com"], groups: ["platform"] } },
        clusters: [{ name: "prod", host: "http://x", accessControl: { groups: ["sre"] } }],
      },
    });
    expect(config.ui.openIDConnect).toMatchObject({
      enabled: true,
      groupClaim: "groups",
      scopes: ["openid", "groups"],
    });
    expect(config.ui.sessions).toEqual({ secret: "k", maxAge: 3600 });
    expect(config.ui.clusters).toEqual([{ name: "prod", accessControl: { emails: [], groups: ["sre"] } }]);
    expect(parseReporterConfig({}).config.ui).toEqual(defaultUiConfig());
    expect(() => parseReporterConfig({ ui: { openIDConnect: { enabled: true } } })).toThrow(
      /ui\.openIDConnect\.discoveryUrl: required/,
    );
    expect(() => parseReporterConfig({ ui: { basicAuth: { username: "x" } } })).toThrow(
      /ui\.basicAuth\.password/,
    );
  });
});

describe("login, guard and dashboard on the API server", () => {
  const setup = async (ui: Partial<UiConfig>) => {
    const dist = mkdtempSync(join(tmpdir(), "reporter-ui-dist-"));
    mkdirSync(join(dist, "assets"));
    writeFileSync(
      join(dist, "index.html"),
      "<!doctype html><html><head><title>PR</title></head><body></body></html>",
    );
    writeFileSync(join(dist, "assets", "app-123.js"), "console.log(1)");
    const store = await createStore({ type: "sqlite", path: ":memory:" });
    const config: UiConfig = {
      ...defaultUiConfig(),
      path: dist,
      sessions: { secret: "test-secret", maxAge: 3600 },
      ...ui,
    };
    const api = await createApiServer({
      store,
      ready: true,
      setup: (app) => registerUi(app, { ui: config, apiBasicAuth: { username: "api", password: "key" } }),
    });
    return {
      app: api.app,
      close: async () => {
        await api.close();
        await store.close();
      },
    };
  };

  it("serves the dashboard openly without a login, with the API meta when configured", async () => {
    const { app, close } = await setup({ apiUrl: "https://api.example/" });
    const index = await app.inject("/");
    expect(index.statusCode).toBe(200);
    expect(index.body).toContain('<meta name="policy-reporter-api" content="https://api.example/">');
    expect(index.headers["cache-control"]).toBe("no-cache");
    const asset = await app.inject("/assets/app-123.js");
    expect(asset.statusCode).toBe(200);
    expect(asset.headers["cache-control"]).toContain("immutable");
    expect((await app.inject("/v2/namespaces")).statusCode).toBe(200);
    expect((await app.inject("/profile")).statusCode).toBe(404);
    expect(injectApiMeta('<head><meta name="policy-reporter-api" content="x"></head>', "y")).toBe(
      '<head><meta name="policy-reporter-api" content="y"></head>',
    );
    await close();
  });

  it("logs in with the basic-auth form, guards pages and API, and logs out", async () => {
    const { app, close } = await setup({ basicAuth: { username: "admin", password: "pw" } });
    expect((await app.inject("/healthz")).statusCode).toBe(200);
    expect((await app.inject("/ready")).statusCode).toBe(200);
    expect((await app.inject("/v2/namespaces")).statusCode).toBe(401);
    const page = await app.inject("/");
    expect(page.statusCode).toBe(401);
    expect(page.body).toContain('location.replace("/login"');
    const asset = await app.inject("/assets/app-123.js");
    expect(asset.statusCode).toBe(302);
    expect(asset.headers.location).toBe("/login");
    const login = await app.inject("/login");
    expect(login.body).toContain('name="password"');
    expect(login.body).not.toContain("OpenID");

    const form = { "content-type": "application/x-www-form-urlencoded" };
    const wrong = await app.inject({
      method: "POST",
      url: "/login",
      headers: form,
      payload: "username=admin&password=no",
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain("Wrong username or password");
    const ok = await app.inject({
      method: "POST",
      url: "/login",
      headers: form,
      payload: "username=admin&password=pw&returnTo=%23%2Fpolicies",
    });
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe("/#/policies");
    const cookie = String(ok.headers["set-cookie"]);
    expect(cookie).toMatch(
      new RegExp(`^${SESSION_COOKIE}=[^;]+; Max-Age=3600; Path=/; HttpOnly; SameSite=Lax`),
    );
    const session = cookie.split(";")[0] ?? "";
    expect((await app.inject({ url: "/v2/namespaces", headers: { cookie: session } })).statusCode).toBe(200);
    expect((await app.inject({ url: "/", headers: { cookie: session } })).statusCode).toBe(200);
    expect((await app.inject({ url: "/profile", headers: { cookie: session } })).json()).toEqual({
      name: "admin",
      email: "",
      groups: [],
      method: "basic",
    });
    // A tampered cookie is no session; the API's own basic credentials still work.
    expect((await app.inject({ url: "/v2/namespaces", headers: { cookie: `${session}x` } })).statusCode).toBe(
      401,
    );
    const basic = `Basic ${Buffer.from("api:key").toString("base64")}`;
    expect((await app.inject({ url: "/v2/namespaces", headers: { authorization: basic } })).statusCode).toBe(
      200,
    );

    const out = await app.inject({ method: "POST", url: "/logout", headers: { cookie: session } });
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe("/login");
    expect(String(out.headers["set-cookie"])).toMatch(
      new RegExp(`^${SESSION_COOKIE}=;.*Expires=Thu, 01 Jan 1970`),
    );
    await close();
  });

  it("answers 403 to a signed-in user the access control refuses", async () => {
    const ui = {
      basicAuth: { username: "admin", password: "pw" },
      boards: { accessControl: { emails: [], groups: ["platform"] } },
    };
    const { app, close } = await setup(ui);
    const sessions = codec(Date.now, "test-secret");
    const mallory = sessions.encode({
      ...alice,
      email: "mallory@example.com",
      name: "Mallory",
      groups: ["guests"],
    });
    const denied = await app.inject({ url: "/", headers: { cookie: `${SESSION_COOKIE}=${mallory}` } });
    expect(denied.statusCode).toBe(403);
    expect(denied.body).toContain("Access denied");
    expect(denied.body).toContain("mallory@example.com");
    const api = await app.inject({
      url: "/v2/namespaces",
      headers: { cookie: `${SESSION_COOKIE}=${mallory}` },
    });
    expect(api.statusCode).toBe(403);
    const ok = sessions.encode(alice);
    expect(
      (await app.inject({ url: "/v2/namespaces", headers: { cookie: `${SESSION_COOKIE}=${ok}` } }))
        .statusCode,
    ).toBe(200);
    await close();
  });
});
