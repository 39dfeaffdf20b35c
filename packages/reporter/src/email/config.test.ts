import { describe, expect, it } from "vitest";
import { parseReporterConfig } from "../config/parse.js";
import { ConfigError } from "../config/read.js";
import { resolveConfigSecrets } from "../config/secrets.js";

const enabled = (extra: Record<string, unknown> = {}) => ({
  emailReports: {
    clusterName: "prod",
    smtp: { host: "smtp.example.com", port: 587, from: "reporter@example.com", encryption: "starttls" },
    summary: { enabled: true, to: ["ops@example.com"] },
    ...extra,
  },
});

function keyOf(raw: unknown): string {
  try {
    parseReporterConfig(raw);
  } catch (error) {
    if (error instanceof ConfigError) return error.key;
    throw error;
  }
  return "";
}

describe("emailReports configuration", () => {
  it("applies the chart's defaults", () => {
    const { config } = parseReporterConfig({});
    expect(config.emailReports).toMatchObject({
      clusterName: "",
      titlePrefix: "Report",
      smtp: { port: 465, encryption: "", skipTLS: false },
      summary: { enabled: false, schedule: "0 8 * * *", to: [], channels: [] },
      violations: { enabled: false, schedule: "0 8 * * *" },
    });
  });

  it("reads reports, filters and channels; CronJob keys are accepted", () => {
    const { config, warnings } = parseReporterConfig(
      enabled({
        resources: { limits: { memory: "100Mi" } },
        violations: {
          enabled: true,
          schedule: "*/30 * * * *",
          backoffLimit: 3,
          restartPolicy: "Never",
          to: ["sec@example.com"],
          filter: {
            disableClusterReports: true,
            namespaces: { exclude: ["kube-*"] },
            sources: { include: ["kyverno"] },
          },
          channels: [{ to: ["team-a@example.com"], filter: { namespaces: { include: ["team-a-*"] } } }],
        },
      }),
    );
    expect(warnings).toEqual([]);
    expect(config.emailReports.smtp).toMatchObject({
      host: "smtp.example.com",
      port: 587,
      encryption: "starttls",
    });
    expect(config.emailReports.violations).toEqual({
      enabled: true,
      schedule: "*/30 * * * *",
      to: ["sec@example.com"],
      filter: {
        disableClusterReports: true,
        namespaces: { exclude: ["kube-*"] },
        sources: { include: ["kyverno"] },
      },
      channels: [{ to: ["team-a@example.com"], filter: { namespaces: { include: ["team-a-*"] } } }],
    });
  });

  it("names the invalid key", () => {
    expect(
      keyOf(enabled({ summary: { enabled: true, to: ["ops@example.com"], schedule: "every day" } })),
    ).toBe("emailReports.summary.schedule");
    expect(keyOf(enabled({ smtp: { host: "h", from: "a@b.c", encryption: "ssl3" } }))).toBe(
      "emailReports.smtp.encryption",
    );
    expect(keyOf(enabled({ smtp: { host: "h", from: "a@b.c", port: 70000 } }))).toBe(
      "emailReports.smtp.port",
    );
    expect(keyOf(enabled({ summary: { enabled: true } }))).toBe("emailReports.summary.to");
    expect(keyOf(enabled({ summary: { enabled: true, to: ["not-an-address"] } }))).toBe(
      "emailReports.summary.to[0]",
    );
    expect(keyOf(enabled({ summary: { enabled: true, to: ["a@b.c"], channels: [{ to: [] }] } }))).toBe(
      "emailReports.summary.channels[0].to",
    );
    expect(keyOf(enabled({ smtp: { from: "a@b.c" } }))).toBe("emailReports.smtp.host");
    expect(keyOf(enabled({ smtp: { host: "h" } }))).toBe("emailReports.smtp.from");
  });

  it("warns about graphAPI and unknown keys", () => {
    const { warnings } = parseReporterConfig(enabled({ graphAPI: { enabled: true }, smtp2: {} }));
    expect(warnings.map((w) => w.key)).toEqual(["emailReports.graphAPI.enabled", "emailReports.smtp2"]);
  });

  it("takes SMTP settings from smtp.secret", async () => {
    const { config } = parseReporterConfig(
      enabled({ smtp: { secret: "smtp-credentials", encryption: "none" } }),
    );
    const resolved = await resolveConfigSecrets(config, {
      readSecret: async (name) =>
        name === "smtp-credentials"
          ? {
              host: "mail.internal",
              port: "2525",
              username: "u",
              password: "p",
              from: "r@example.com",
              encryption: "ssl",
            }
          : undefined,
    });
    expect(resolved.emailReports.smtp).toMatchObject({
      host: "mail.internal",
      port: 2525,
      username: "u",
      password: "p",
      from: "r@example.com",
      encryption: "ssl",
    });
    await expect(resolveConfigSecrets(config, { readSecret: async () => undefined })).rejects.toMatchObject({
      key: "emailReports.smtp.secret",
    });
    await expect(
      resolveConfigSecrets(config, { readSecret: async () => ({ host: "h", from: "a@b.c", port: "x" }) }),
    ).rejects.toMatchObject({ key: "emailReports.smtp.port" });
  });
});
