import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { mysqlUrlFromDsn, postgresUrlFromDsn, storeOptionsFromConfig } from "./database.js";
import { applyEnvOverrides } from "./env.js";
import { loadReporterConfig } from "./load.js";
import { parseReporterConfig } from "./parse.js";
import { type ConfigError, isConfigError } from "./read.js";
import { resolveConfigSecrets } from "./secrets.js";

const VALUES = new URL(
  "../../../../../shared/reference/policy-reporter/charts/policy-reporter/values.yaml",
  import.meta.url,
).pathname;

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (isConfigError(error)) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

function tempFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "reporter-config-")), "config.yaml");
  writeFileSync(file, text);
  return file;
}

describe("configuration", () => {
  it("accepts Policy Reporter's Helm values file as is, with upstream's defaults", () => {
    const { config, warnings } = loadReporterConfig({ file: VALUES, hostname: "pod-1" });
    expect(config.database.type).toBe("sqlite");
    expect(config.metrics).toMatchObject({ enabled: false, mode: "detailed", customLabels: [] });
    expect(config.redis).toMatchObject({ enabled: false, prefix: "policy-reporter" });
    expect(config.leaderElection).toMatchObject({
      enabled: false,
      lockName: "policy-reporter",
      podName: "pod-1",
      leaseDuration: 15,
      renewDeadline: 10,
      retryPeriod: 2,
    });
    expect(config.sourceFilters).toEqual([
      {
        selector: { sources: ["kyverno", "KyvernoValidatingPolicy", "KyvernoImageValidatingPolicy"] },
        uncontrolledOnly: true,
      },
    ]);
    expect(config.worker).toBe(5);
    // Every target block is present but has no endpoint, so none will be built.
    expect(Object.keys(config.target).sort()).toEqual(
      [
        "alertManager",
        "discord",
        "elasticsearch",
        "googleChat",
        "loki",
        "slack",
        "teams",
        "telegram",
        "webhook",
      ].sort(),
    );
    expect(warnings).toEqual([]);
  });

  it("reads the sections the reporter uses", () => {
    const { config } = parseReporterConfig({
      database: { type: "postgres", dsn: "postgres://u:p@db:5432/reports" },
      metrics: {
        mode: "custom",
        customLabels: ["namespace", "policy"],
        filter: { status: { exclude: ["pass"] } },
      },
      reportFilter: { namespaces: { exclude: ["kube-*"] }, disableClusterReports: true },
      sourceFilters: [{ selector: { sources: ["kyverno"] }, kinds: { exclude: ["Pod"] } }],
      redis: { enabled: true, address: "redis:6379", prefix: "pr" },
      basicAuth: { username: "admin", password: "secret" },
      leaderElection: { enabled: "true" },
      target: {
        slack: {
          webhook: "http://slack",
          minimumSeverity: "high",
          channels: [{ webhook: "http://c1", filter: { namespaces: { include: ["team-*"] } } }],
        },
      },
    });
    expect(config.metrics).toEqual({
      enabled: true,
      mode: "custom",
      customLabels: ["namespace", "policy"],
      filter: { status: { exclude: ["pass"] } },
    });
    expect(config.reportFilter).toEqual({ namespaces: { exclude: ["kube-*"] }, disableClusterReports: true });
    expect(config.sourceFilters).toEqual([
      { selector: { sources: ["kyverno"] }, kinds: { exclude: ["Pod"] } },
    ]);
    expect(config.api.basicAuth).toEqual({ username: "admin", password: "secret" });
    expect(config.leaderElection.enabled).toBe(true);
    expect(config.target.slack).toEqual({
      webhook: "http://slack",
      minimumSeverity: "high",
      channels: [{ webhook: "http://c1", filter: { namespaces: { include: ["team-*"] } } }],
    });
  });

  it("refuses invalid values with the key and the reason", () => {
    const cases: [unknown, string, RegExp][] = [
      [{ database: { type: "oracle" } }, "database.type", /one of sqlite, postgres, mysql, mariadb/],
      [{ database: { type: "postgres" } }, "database.dsn", /set database.dsn or database.host/],
      [{ metrics: { mode: "verbose" } }, "metrics.mode", /not "verbose"/],
      [{ metrics: { mode: "custom" } }, "metrics.customLabels", /at least one label/],
      [{ metrics: { customLabels: ["pod"] } }, "metrics.customLabels[0]", /unknown label "pod"/],
      [{ redis: { enabled: true } }, "redis.address", /required/],
      [{ redis: { address: "redis" } }, "redis.address", /host:port/],
      [{ leaderElection: { leaseDuration: 5 } }, "leaderElection.leaseDuration", /greater than/],
      [{ worker: "many" }, "worker", /integer/],
      [{ leaderElection: { lockName: "Policy_Reporter" } }, "leaderElection.lockName", /Lease name/],
      [{ basicAuth: { username: "a" } }, "basicAuth.password", /both/],
      [
        { target: { slack: { channels: [{}, { webhook: ["x"] }] } } },
        "target.slack.channels[1].webhook",
        /string/,
      ],
      [{ target: { webhook: { sources: "kyverno" } } }, "target.webhook.sources", /list of strings/],
      [{ reportFilter: { namespaces: { include: "a" } } }, "reportFilter.namespaces.include", /list/],
      [{ sourceFilters: { a: 1 } }, "sourceFilters", /must be a list/],
    ];
    for (const [raw, key, reason] of cases) {
      const error = errorOf(() => parseReporterConfig(raw));
      expect(error.code).toBe("CONFIG_INVALID");
      expect(error.key).toBe(key);
      expect(error.reason).toMatch(reason);
    }
  });

  it("points at the line of an invalid value in the file, and at YAML syntax errors", () => {
    const file = tempFile("metrics:\n  enabled: true\n  mode: loud\n");
    const error = errorOf(() => loadReporterConfig({ file }));
    expect(error.key).toBe("metrics.mode");
    expect(error.message).toContain(`${file}:3`);
    const broken = errorOf(() => loadReporterConfig({ file: tempFile("metrics: [\n") }));
    expect(broken.message).toMatch(/config\.yaml:\d+/);
    expect(errorOf(() => loadReporterConfig({ file: "/nonexistent/config.yaml" })).key).toBe("--config");
  });

  it("warns about unknown keys in the sections it reads and unsupported targets", () => {
    const { warnings } = parseReporterConfig({
      metrics: { enabled: true, mod: "simple" },
      target: { s3: { bucket: "reports" }, gcs: { bucket: "" } },
    });
    expect(warnings).toEqual([
      { key: "metrics.mod", message: 'unknown key; ignored (did you mean "mode"?)' },
      { key: "target.s3", message: "this target kind is not supported; ignored" },
    ]);
  });

  it("warns about a misspelt key in a target and in its channels, naming the key it likely meant", () => {
    const { warnings, config } = parseReporterConfig({
      target: {
        slack: {
          webhok: "https://hooks.slack.example/a",
          minimumSeverity: "high",
          channels: [{ webhook: "https://hooks.slack.example/b", filtr: {} }],
        },
        webhook: { webhook: "https://hook.example", colour: "red" },
      },
    });
    expect(warnings).toEqual([
      { key: "target.slack.channels[0].filtr", message: 'unknown key; ignored (did you mean "filter"?)' },
      { key: "target.slack.webhok", message: 'unknown key; ignored (did you mean "webhook"?)' },
      { key: "target.webhook.colour", message: "unknown key; ignored" },
    ]);
    expect(config.target.slack?.webhook).toBeUndefined();
  });

  it("applies environment overrides over the file", () => {
    const file = tempFile("database:\n  type: postgres\n  host: db\nmetrics:\n  enabled: false\n");
    const { config, fromEnv } = loadReporterConfig({
      file,
      env: {
        DATABASE_PASSWORD: "s3cret",
        METRICS_ENABLED: "true",
        POD_NAME: "reporter-0",
        POD_NAMESPACE: "policy-reporter",
        REDIS_ADDRESS: "",
      },
    });
    expect(config.database.password).toBe("s3cret");
    expect(config.metrics.enabled).toBe(true);
    expect(config.leaderElection.podName).toBe("reporter-0");
    expect(config.namespace).toBe("policy-reporter");
    expect(fromEnv.sort()).toEqual([
      "database.password",
      "leaderElection.podName",
      "metrics.enabled",
      "namespace",
    ]);
    const bad = errorOf(() => loadReporterConfig({ env: { METRICS_MODE: "loud" } }));
    expect(bad.key).toBe("metrics.mode");
    expect(applyEnvOverrides(undefined, {}).raw).toEqual({});
  });

  it("turns database settings into driver URLs", () => {
    expect(mysqlUrlFromDsn("root:pw@tcp(db:3306)/reports?tls=false")).toBe("mysql://root:pw@db:3306/reports");
    expect(mysqlUrlFromDsn("mysql://a@b/c")).toBe("mysql://a@b/c");
    expect(postgresUrlFromDsn("host=db port=5432 user=u password='p w' dbname=r sslmode=disable")).toBe(
      "postgres://u:p%20w@db:5432/r?sslmode=disable",
    );
    const { config } = parseReporterConfig({
      database: { type: "mariadb", host: "db", username: "u", password: "p@ss", database: "reports" },
    });
    expect(storeOptionsFromConfig(config.database, ":memory:")).toMatchObject({
      type: "mariadb",
      connectionString: "mysql://u:p%40ss@db:3306/reports",
      maxConnections: 25,
    });
    expect(storeOptionsFromConfig(parseReporterConfig({}).config.database, "/tmp/x.db")).toEqual({
      type: "sqlite",
      path: "/tmp/x.db",
    });
    expect(errorOf(() => mysqlUrlFromDsn("not a dsn at all")).key).toBe("database.dsn");
  });

  it("resolves secretRef and mountedSecret into targets, channels, database and basic auth", async () => {
    const mounted = tempFile(JSON.stringify({ webhook: "http://mounted" }));
    const { config } = parseReporterConfig({
      database: { type: "postgres", secretRef: "db" },
      basicAuth: { secretRef: "auth" },
      target: {
        slack: { secretRef: "slack", channels: [{ mountedSecret: mounted }] },
        discord: { webhook: "http://kept" },
      },
    });
    const secrets: Record<string, Record<string, string>> = {
      db: { dsn: "postgres://from-secret/db" },
      auth: { username: "u", password: "p" },
      slack: { webhook: "http://from-secret", unrelated: "x" },
    };
    const resolved = await resolveConfigSecrets(config, { readSecret: async (name) => secrets[name] });
    expect(resolved.database.dsn).toBe("postgres://from-secret/db");
    expect(resolved.api.basicAuth).toMatchObject({ username: "u", password: "p" });
    expect(resolved.target.slack).toMatchObject({ webhook: "http://from-secret" });
    expect(resolved.target.slack?.channels?.[0]).toMatchObject({ webhook: "http://mounted" });
    expect(resolved.target.discord).toEqual({ webhook: "http://kept" });
    expect(resolved.target.slack).not.toHaveProperty("unrelated");

    const missing = await resolveConfigSecrets(config, { readSecret: async () => undefined }).catch(
      (e: unknown) => e,
    );
    expect(isConfigError(missing) && missing.key).toBe("database.secretRef");
  });

  it("resolves the dashboard's login settings from secretRef", async () => {
    const { config } = parseReporterConfig({
      ui: {
        openIDConnect: { enabled: true, discoveryUrl: "https://idp.example/realms/x", secretRef: "oidc" },
        basicAuth: { secretRef: "form" },
      },
    });
    const secrets: Record<string, Record<string, string>> = {
      oidc: {
        clientId: "reporter",
        clientSecret: "s3cret",
        callbackUrl: "https://reporter.example/callback",
      },
      form: { username: "ops", password: "pw" },
    };
    const resolved = await resolveConfigSecrets(config, { readSecret: async (name) => secrets[name] });
    expect(resolved.ui.openIDConnect).toMatchObject({
      discoveryUrl: "https://idp.example/realms/x",
      callbackUrl: "https://reporter.example/callback",
      clientId: "reporter",
      clientSecret: "s3cret",
    });
    expect(resolved.ui.basicAuth).toMatchObject({ username: "ops", password: "pw" });

    const incomplete = await resolveConfigSecrets(config, {
      readSecret: async (name) => (name === "oidc" ? { clientSecret: "s3cret" } : secrets[name]),
    }).catch((e: unknown) => e);
    expect(isConfigError(incomplete) && incomplete.key).toBe("ui.openIDConnect.callbackUrl");
  });
});
