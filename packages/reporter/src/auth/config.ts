/**
 * The dashboard's configuration (`ui.*` of Policy Reporter's Helm values): where the built UI is,
 * the login methods (`ui.openIDConnect`, `ui.basicAuth`), sessions (`ui.server.sessions`) and
 * access control (`ui.boards.accessControl`, `ui.clusters[].accessControl`, as allow lists).
 */
import { ConfigError, type Section } from "../config/read.js";

/** An allow list: empty lists allow everyone; otherwise a matching email or group is needed. */
export interface AccessControl {
  emails: string[];
  groups: string[];
}

/** `ui.openIDConnect`. */
export interface OpenIdConnectConfig {
  enabled: boolean;
  /** The issuer URL, or the discovery document's URL (`…/.well-known/openid-configuration`). */
  discoveryUrl: string;
  /** Where the provider sends the browser back (`https://reporter.example/callback`). */
  callbackUrl: string;
  clientId: string;
  clientSecret: string;
  /** The claim holding the user's groups (e.g. `groups`); empty: no groups. */
  groupClaim: string;
  /** Requested scopes; `openid` is always added. Default `openid profile email`. */
  scopes: string[];
  /** Secret with `discoveryUrl`, `clientId`, `clientSecret` (resolved by the caller when supported). */
  secretRef?: string;
}

/** `ui.basicAuth`: one user logging in with a form. */
export interface UiBasicAuthConfig {
  username: string;
  password: string;
  secretRef?: string;
}

/** `ui.clusters[]`: this reporter is the cluster whose `name` equals `ui.name`. */
export interface UiClusterConfig {
  name: string;
  accessControl: AccessControl;
}

/** `ui.server.sessions`. */
export interface SessionConfig {
  /** HMAC key of the session cookies; empty: a random key per start (sessions end at restart). */
  secret: string;
  /** Session lifetime in seconds (default 8 hours). */
  maxAge: number;
}

/** `ui`. */
export interface UiConfig {
  /** Serve the dashboard (default true here; the chart's default is false). */
  enabled: boolean;
  /** The built dashboard (`path`); empty: `packages/reporter-ui/dist` next to this package. */
  path: string;
  /** `<meta name="policy-reporter-api">` injected into `index.html`; empty: same origin. */
  apiUrl: string;
  /** This cluster's name (`ui.name`, default `Default`). */
  name: string;
  openIDConnect: OpenIdConnectConfig;
  basicAuth: UiBasicAuthConfig;
  sessions: SessionConfig;
  /** `ui.boards.accessControl`: who may see the dashboards at all. */
  boards: { accessControl: AccessControl };
  clusters: UiClusterConfig[];
}

/** The configuration without a `ui` section. */
export function defaultUiConfig(): UiConfig {
  return {
    enabled: true,
    path: "",
    apiUrl: "",
    name: "Default",
    openIDConnect: {
      enabled: false,
      discoveryUrl: "",
      callbackUrl: "",
      clientId: "",
      clientSecret: "",
      groupClaim: "",
      scopes: [],
    },
    basicAuth: { username: "", password: "" },
    sessions: { secret: "", maxAge: 8 * 3600 },
    boards: { accessControl: { emails: [], groups: [] } },
    clusters: [],
  };
}

function readAccessControl(s: Section): AccessControl {
  const out = { emails: s.strList("emails"), groups: s.strList("groups") };
  s.warnUnknown();
  return out;
}

function readOpenIdConnect(s: Section): OpenIdConnectConfig {
  const secretRef = s.str("secretRef");
  const out: OpenIdConnectConfig = {
    enabled: s.bool("enabled", false),
    discoveryUrl: s.str("discoveryUrl"),
    callbackUrl: s.str("callbackUrl") || s.str("callback"),
    clientId: s.str("clientId"),
    clientSecret: s.str("clientSecret"),
    groupClaim: s.str("groupClaim"),
    scopes: s.strList("scopes"),
    ...(secretRef ? { secretRef } : {}),
  };
  s.bool("skipTLS", false);
  s.str("certificate");
  if (out.enabled && !secretRef) {
    for (const key of ["discoveryUrl", "callbackUrl", "clientId"] as const) {
      if (out[key] === "") throw new ConfigError(s.at(key), "required when ui.openIDConnect.enabled is true");
    }
  }
  for (const key of ["discoveryUrl", "callbackUrl"] as const) {
    if (out[key] !== "" && !URL.canParse(out[key])) {
      throw new ConfigError(s.at(key), `not a URL: ${JSON.stringify(out[key])}`);
    }
  }
  s.warnUnknown();
  return out;
}

function readBasicAuth(s: Section): UiBasicAuthConfig {
  const secretRef = s.str("secretRef");
  const out: UiBasicAuthConfig = {
    username: s.str("username"),
    password: s.str("password"),
    ...(secretRef ? { secretRef } : {}),
  };
  if ((out.username === "") !== (out.password === "") && !secretRef) {
    const missing = out.username === "" ? "username" : "password";
    throw new ConfigError(s.at(missing), "basic auth needs both a username and a password");
  }
  s.warnUnknown();
  return out;
}

/**
 * Reads the `ui` section. Keys of the chart that concern the separate UI deployment (image,
 * resources, plugins, custom boards, …) are accepted and ignored; only the sections read here are
 * checked for unknown keys.
 */
export function readUiConfig(ui: Section): UiConfig {
  const out = defaultUiConfig();
  out.enabled = ui.bool("enabled", true);
  out.path = ui.str("path");
  out.apiUrl = ui.str("apiUrl");
  out.name = ui.str("name") || "Default";
  out.openIDConnect = readOpenIdConnect(ui.section("openIDConnect"));
  out.basicAuth = readBasicAuth(ui.section("basicAuth"));
  const sessions = ui.section("server").section("sessions");
  out.sessions = {
    secret: sessions.str("secret"),
    maxAge: sessions.int("maxAge", out.sessions.maxAge, { min: 60 }),
  };
  out.boards = { accessControl: readAccessControl(ui.section("boards").section("accessControl")) };
  out.clusters = ui.sections("clusters").map((c) => ({
    name: c.str("name"),
    accessControl: readAccessControl(c.section("accessControl")),
  }));
  return out;
}
