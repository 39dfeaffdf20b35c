/**
 * `secretRef` / `mountedSecret` resolution: values from a Secret in the reporter's namespace (or a
 * mounted JSON file) override the configured ones, for the targets and their channels, `database`,
 * `redis`, `basicAuth`, the SMTP settings and the dashboard's logins (`ui.openIDConnect`,
 * `ui.basicAuth`: `secretRef` only), as upstream. Done once at start, before anything is built.
 */
import { readFileSync } from "node:fs";
import type { KubeClient } from "@kyverno-ts/kube";
import type { CommonTargetConfig } from "../targets/config/kind-spec.js";
import {
  SUPPORTED_TARGET_KINDS,
  secretFields,
  type TargetKind,
  type TargetsConfig,
} from "../targets/config/kinds.js";
import { ConfigError } from "./read.js";
import type { ReporterConfig, SecretSource } from "./types.js";

/** Reads a Secret's data (decoded); `undefined` when it does not exist. Throws for other failures. */
export type SecretReader = (name: string) => Promise<Readonly<Record<string, string>> | undefined>;

/** Dependencies of {@link resolveConfigSecrets}. */
export interface SecretDeps {
  /** Needed when any `secretRef` is set. */
  readSecret?: SecretReader;
  /** Reads a mounted secret file (default `fs.readFileSync`). */
  readFile?: (path: string) => string;
}

/** A {@link SecretReader} over the API server: Secrets of `namespace`. */
export function kubeSecretReader(client: KubeClient, namespace: string): SecretReader {
  return async (name) => {
    const got = await client.get<{
      metadata?: { name?: string };
      data?: Record<string, string>;
      stringData?: Record<string, string>;
    }>({
      apiVersion: "v1",
      kind: "Secret",
      namespace,
      name,
    });
    if (!got.ok) {
      if (got.status === 404) return undefined;
      throw new Error(`reading Secret ${namespace}/${name}: ${got.status} ${got.reason}: ${got.message}`);
    }
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(got.value.data ?? {}))
      out[k] = Buffer.from(v, "base64").toString("utf8");
    for (const [k, v] of Object.entries(got.value.stringData ?? {})) out[k] = v;
    return out;
  };
}

async function valuesOf(
  source: SecretSource,
  key: string,
  deps: SecretDeps,
): Promise<Readonly<Record<string, unknown>>> {
  let values: Record<string, unknown> = {};
  if (source.mountedSecret) {
    const path = source.mountedSecret;
    try {
      const parsed: unknown = JSON.parse((deps.readFile ?? ((p) => readFileSync(p, "utf8")))(path));
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
        throw new Error("not a JSON object");
      values = { ...(parsed as Record<string, unknown>) };
    } catch (error) {
      throw new ConfigError(`${key}.mountedSecret`, `cannot read ${path}: ${(error as Error).message}`);
    }
  }
  if (source.secretRef) {
    if (!deps.readSecret) throw new ConfigError(`${key}.secretRef`, "needs access to the cluster");
    let data: Readonly<Record<string, string>> | undefined;
    try {
      data = await deps.readSecret(source.secretRef);
    } catch (error) {
      throw new ConfigError(`${key}.secretRef`, (error as Error).message);
    }
    if (data === undefined)
      throw new ConfigError(`${key}.secretRef`, `Secret ${JSON.stringify(source.secretRef)} not found`);
    values = { ...values, ...data };
  }
  return values;
}

/** Copies the non-empty string values of `fields` from `values` over `target`. */
function overlay<T extends object>(
  target: T,
  values: Readonly<Record<string, unknown>>,
  fields: readonly string[],
): T {
  const out: Record<string, unknown> = { ...(target as Record<string, unknown>) };
  for (const field of fields) {
    const v = values[field];
    if (typeof v === "string" && v !== "") out[field] = v;
    else if (typeof v === "number" || typeof v === "boolean") out[field] = String(v);
  }
  return out as T;
}

async function resolveTarget(
  kind: TargetKind,
  config: CommonTargetConfig & { channels?: CommonTargetConfig[] },
  key: string,
  deps: SecretDeps,
): Promise<CommonTargetConfig> {
  const fields = secretFields(kind);
  const own =
    config.secretRef || config.mountedSecret
      ? overlay(config, await valuesOf(config, key, deps), fields)
      : config;
  if (!config.channels) return own;
  const channels: CommonTargetConfig[] = [];
  for (const [i, channel] of config.channels.entries()) {
    channels.push(
      channel.secretRef || channel.mountedSecret
        ? overlay(channel, await valuesOf(channel, `${key}.channels[${i}]`, deps), fields)
        : channel,
    );
  }
  return { ...own, channels } as CommonTargetConfig;
}

/** `emailReports.smtp.secret`: host, port, username, password, from, encryption from a Secret. */
async function resolveSmtpSecret(
  email: ReporterConfig["emailReports"],
  deps: SecretDeps,
): Promise<ReporterConfig["emailReports"]> {
  const key = "emailReports.smtp";
  let values: Readonly<Record<string, unknown>>;
  try {
    values = await valuesOf({ secretRef: email.smtp.secret }, key, deps);
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError(`${key}.secret`, error.reason);
    throw error;
  }
  const smtp = overlay(email.smtp, values, ["host", "username", "password", "from", "encryption"]);
  const port = values.port;
  if (port !== undefined && port !== "") {
    const n = Number(port);
    if (!Number.isInteger(n) || n < 1 || n > 65535) {
      throw new ConfigError(
        `${key}.port`,
        `Secret ${JSON.stringify(email.smtp.secret)}: invalid port ${JSON.stringify(port)}`,
      );
    }
    smtp.port = n;
  }
  if (!["", "ssl", "tls", "starttls", "none"].includes(smtp.encryption)) {
    throw new ConfigError(
      `${key}.encryption`,
      `must be one of ssl, tls, starttls, none, not ${JSON.stringify(smtp.encryption)}`,
    );
  }
  const enabled = email.summary.enabled || email.violations.enabled;
  if (enabled && smtp.host === "")
    throw new ConfigError(`${key}.host`, "required when an email report is enabled");
  if (enabled && smtp.from === "")
    throw new ConfigError(`${key}.from`, "required when an email report is enabled");
  return { ...email, smtp };
}

/** `ui.openIDConnect.secretRef` and `ui.basicAuth.secretRef`: the dashboard's login settings from Secrets. */
async function resolveUiSecrets(ui: ReporterConfig["ui"], deps: SecretDeps): Promise<ReporterConfig["ui"]> {
  let { openIDConnect, basicAuth } = ui;
  if (openIDConnect.secretRef) {
    const values = await valuesOf({ secretRef: openIDConnect.secretRef }, "ui.openIDConnect", deps);
    openIDConnect = overlay(openIDConnect, values, [
      "discoveryUrl",
      "callbackUrl",
      "clientId",
      "clientSecret",
    ]);
    if (openIDConnect.enabled) {
      for (const key of ["discoveryUrl", "callbackUrl", "clientId"] as const) {
        if (openIDConnect[key] === "")
          throw new ConfigError(`ui.openIDConnect.${key}`, "required when ui.openIDConnect.enabled is true");
      }
    }
  }
  if (basicAuth.secretRef) {
    const values = await valuesOf({ secretRef: basicAuth.secretRef }, "ui.basicAuth", deps);
    basicAuth = overlay(basicAuth, values, ["username", "password"]);
    if ((basicAuth.username === "") !== (basicAuth.password === "")) {
      const missing = basicAuth.username === "" ? "username" : "password";
      throw new ConfigError(`ui.basicAuth.${missing}`, "basic auth needs both a username and a password");
    }
  }
  return { ...ui, openIDConnect, basicAuth };
}

/**
 * Returns the configuration with every `secretRef` / `mountedSecret` applied. Throws a `ConfigError`
 * naming the key when a Secret is missing or a file unreadable.
 */
export async function resolveConfigSecrets(
  config: ReporterConfig,
  deps: SecretDeps,
): Promise<ReporterConfig> {
  const has = (s: SecretSource) => Boolean(s.secretRef || s.mountedSecret);
  const out: ReporterConfig = { ...config };
  if (has(config.database)) {
    const values = await valuesOf(config.database, "database", deps);
    out.database = overlay(config.database, values, ["username", "password", "host", "dsn", "database"]);
  }
  if (has(config.redis)) {
    out.redis = overlay(config.redis, await valuesOf(config.redis, "redis", deps), ["username", "password"]);
  }
  if (has(config.api.basicAuth)) {
    const values = await valuesOf(config.api.basicAuth, "basicAuth", deps);
    out.api = { ...config.api, basicAuth: overlay(config.api.basicAuth, values, ["username", "password"]) };
  }
  if (config.emailReports.smtp.secret) {
    out.emailReports = await resolveSmtpSecret(config.emailReports, deps);
  }
  if (config.ui.openIDConnect.secretRef || config.ui.basicAuth.secretRef) {
    out.ui = await resolveUiSecrets(config.ui, deps);
  }
  const target: Record<string, CommonTargetConfig> = {};
  for (const kind of SUPPORTED_TARGET_KINDS) {
    const t = config.target[kind];
    if (t !== undefined) target[kind] = await resolveTarget(kind, t, `target.${kind}`, deps);
  }
  out.target = target as TargetsConfig;
  return out;
}
