import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createManualClock } from "@kyverno-ts/api";
import { type CertificateAndKey, createCertificateAuthority } from "@kyverno-ts/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStore } from "../store/connect.js";
import type { ReportStore } from "../store/types.js";
import { testLogger } from "../targets/testing/receiver.js";
import { normalized, pod, report, result } from "../testing/fixtures.js";
import { createEmailReports, type EmailFailure, type EmailReportsOptions } from "./reports.js";
import { parseMime, startTestSmtpServer, type TestSmtpServer } from "./testing/smtp.js";
import type { MailMessage, MailTransport } from "./transport.js";
import type { EmailReportConfig, EmailReportsConfig, SmtpConfig } from "./types.js";

const NOW = Date.UTC(2026, 0, 1, 6, 0, 0);

function reportConfig(fields: Partial<EmailReportConfig> = {}): EmailReportConfig {
  return {
    enabled: true,
    schedule: "0 8 * * *",
    to: ["ops@example.com"],
    filter: {},
    channels: [],
    ...fields,
  };
}

function emailConfig(
  smtp: Partial<SmtpConfig>,
  fields: Partial<EmailReportsConfig> = {},
): EmailReportsConfig {
  return {
    clusterName: "dev-cluster",
    titlePrefix: "Report",
    smtp: {
      secret: "",
      host: "127.0.0.1",
      port: 25,
      username: "",
      password: "",
      from: "reporter@example.com",
      encryption: "none",
      skipTLS: false,
      certificate: "",
      ...smtp,
    },
    summary: reportConfig(),
    violations: reportConfig(),
    ...fields,
  };
}

async function seed(store: ReportStore): Promise<void> {
  const reports = [
    report({
      name: "r-team-a",
      namespace: "team-a",
      results: [
        result({ resources: [pod("a", "team-a")] }),
        result({
          policy: "disallow-latest",
          rule: "validate-image",
          result: "fail",
          severity: "high",
          message: "image tag <latest> is not allowed",
          resources: [pod("b", "team-a")],
        }),
        result({ policy: "require-probes", result: "warn", resources: [pod("a", "team-a")] }),
        result({
          source: "trivy",
          policy: "CVE-2026-0001",
          rule: "libssl",
          result: "fail",
          resources: [pod("a", "team-a")],
        }),
      ],
    }),
    report({
      name: "r-team-b",
      namespace: "team-b",
      results: [
        result({ resources: [pod("c", "team-b")] }),
        result({ resources: [pod("d", "team-b")] }),
        result({
          policy: "disallow-latest",
          rule: "validate-image",
          result: "fail",
          resources: [pod("c", "team-b")],
        }),
      ],
    }),
    report({
      name: "r-kube-system",
      namespace: "kube-system",
      results: [result({ policy: "check-system", result: "error", resources: [pod("e", "kube-system")] })],
    }),
    report({
      name: "c-cluster",
      results: [
        result({
          policy: "require-ns-labels",
          result: "fail",
          message: "label team is required",
          resources: [{ apiVersion: "v1", kind: "Namespace", name: "team-a", uid: "uid-ns-team-a" }],
        }),
        result({
          policy: "require-ns-labels",
          resources: [{ apiVersion: "v1", kind: "Namespace", name: "team-b", uid: "uid-ns-team-b" }],
        }),
      ],
    }),
  ];
  await store.write(reports.map((r) => ({ type: "upsert" as const, report: normalized(r) })));
}

describe("email reports over a real SMTP server", () => {
  let store: ReportStore;
  let cert: CertificateAndKey;
  let caFile: string;
  let dir: string;
  const servers: TestSmtpServer[] = [];

  const server = async (...args: Parameters<typeof startTestSmtpServer>): Promise<TestSmtpServer> => {
    const s = await startTestSmtpServer(...args);
    servers.push(s);
    return s;
  };
  const reports = (config: EmailReportsConfig, extra: Partial<EmailReportsOptions> = {}) =>
    createEmailReports({
      config,
      store,
      clock: createManualClock(NOW),
      timeouts: { connectionTimeout: 3000 },
      ...extra,
    });

  beforeAll(async () => {
    store = await createStore({ type: "sqlite" });
    await seed(store);
    const ca = await createCertificateAuthority({ commonName: "email-test-ca" });
    cert = await ca.issue(["localhost", "127.0.0.1"]);
    dir = mkdtempSync(join(tmpdir(), "email-test-"));
    caFile = join(dir, "ca.pem");
    writeFileSync(caFile, ca.caCertPem);
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("sends the summary in plain text and HTML to every recipient (no encryption)", async () => {
    const smtp = await server({ mode: "plain" });
    const config = emailConfig(
      { port: smtp.port, encryption: "none" },
      { summary: reportConfig({ to: ["ops@example.com", "sec@example.com"] }) },
    );
    const outcome = await reports(config).sendNow("summary");
    expect(outcome).toEqual({ report: "summary", sent: 1, failed: 0 });
    const [mail] = await smtp.waitFor(1);
    expect(mail?.to).toEqual(["ops@example.com", "sec@example.com"]);
    expect(mail?.from).toBe("reporter@example.com");
    expect(mail?.secure).toBe(false);
    const parsed = parseMime(mail?.raw ?? "");
    expect(parsed.headers.subject).toBe("Report Summary on dev-cluster");
    // Namespace, pass, fail, warn, error, skip.
    expect(parsed.text).toMatch(/== kyverno ==/);
    expect(parsed.text).toMatch(/Cluster scope\s+1\s+1\s+0\s+0\s+0/);
    expect(parsed.text).toMatch(/kube-system\s+0\s+0\s+0\s+1\s+0/);
    expect(parsed.text).toMatch(/team-a\s+1\s+1\s+1\s+0\s+0/);
    expect(parsed.text).toMatch(/team-b\s+2\s+1\s+0\s+0\s+0/);
    expect(parsed.text).toMatch(/== trivy ==\n.*\nteam-a\s+0\s+1\s+0\s+0\s+0/);
    expect(parsed.html).toContain("<table style=");
    expect(parsed.html).toMatch(/<td[^>]*>team-b<\/td><td[^>]*>2<\/td><td[^>]*>1<\/td>/);
    expect(parsed.html).toContain("dev-cluster");
    expect(parsed.html).not.toContain("<style");
  });

  it("sends violations over mandatory STARTTLS with the configured CA, one message per channel", async () => {
    const smtp = await server({ mode: "starttls", tls: cert });
    const config = emailConfig(
      { port: smtp.port, host: "localhost", encryption: "starttls", certificate: caFile },
      {
        violations: reportConfig({
          to: ["ops@example.com"],
          filter: { namespaces: { exclude: ["kube-*"] } },
          channels: [
            {
              to: ["team-a@example.com"],
              filter: {
                namespaces: { include: ["team-a"] },
                sources: { include: ["kyverno"] },
                disableClusterReports: true,
              },
            },
          ],
        }),
      },
    );
    const outcome = await reports(config).sendNow("violations");
    expect(outcome).toEqual({ report: "violations", sent: 2, failed: 0 });
    const [all, teamA] = await smtp.waitFor(2);
    expect(all?.secure).toBe(true);
    expect(all?.to).toEqual(["ops@example.com"]);
    const main = parseMime(all?.raw ?? "");
    expect(main.headers.subject).toBe("Report Violations on dev-cluster");
    expect(main.text).toContain(
      "[FAIL] disallow-latest / validate-image on Pod b (high): image tag <latest> is not allowed",
    );
    expect(main.text).toContain("[WARN] require-probes / check on Pod a");
    expect(main.text).toContain(
      "[FAIL] require-ns-labels / check on Namespace team-a: label team is required",
    );
    expect(main.text).toContain("[FAIL] CVE-2026-0001 / libssl on Pod a");
    expect(main.text).toContain("-- Namespace team-b (1 violations, 2 passed) --");
    expect(main.text).not.toContain("check-system");
    expect(main.html).toContain("image tag &lt;latest&gt; is not allowed");
    expect(main.html).toContain("disallow-latest");

    expect(teamA?.to).toEqual(["team-a@example.com"]);
    const team = parseMime(teamA?.raw ?? "");
    expect(team.text).toContain("disallow-latest / validate-image on Pod b");
    expect(team.text).not.toContain("Pod c");
    expect(team.text).not.toContain("require-ns-labels");
    expect(team.text).not.toContain("CVE-2026-0001");
  });

  it("sends over implicit TLS with skipTLS, and refuses an unknown certificate without it", async () => {
    const smtp = await server({ mode: "tls", tls: cert });
    const ok = await reports(emailConfig({ port: smtp.port, encryption: "ssl", skipTLS: true })).sendNow(
      "summary",
    );
    expect(ok.sent).toBe(1);
    const [mail] = await smtp.waitFor(1);
    expect(mail?.secure).toBe(true);

    const failures: EmailFailure[] = [];
    const logger = testLogger();
    const bad = await reports(emailConfig({ port: smtp.port, encryption: "tls" }), {
      logger,
      onError: (f) => failures.push(f),
    }).sendNow("summary");
    expect(bad).toEqual({ report: "summary", sent: 0, failed: 1 });
    expect(failures.map((f) => f.code)).toEqual(["TLS"]);
    expect(logger.lines.some((l) => l.level === "error" && l.message === "email summary report failed")).toBe(
      true,
    );

    const trusted = await reports(
      emailConfig({ port: smtp.port, host: "localhost", encryption: "tls", certificate: caFile }),
    ).sendNow("violations");
    expect(trusted.sent).toBe(1);
  });

  it("authenticates, and counts an authentication failure without throwing", async () => {
    const smtp = await server({ mode: "plain", credentials: { username: "mailer", password: "s3cret" } });
    const good = await reports(
      emailConfig({ port: smtp.port, username: "mailer", password: "s3cret" }),
    ).sendNow("summary");
    expect(good.sent).toBe(1);
    expect((await smtp.waitFor(1))[0]?.user).toBe("mailer");

    const failures: EmailFailure[] = [];
    const bad = await reports(emailConfig({ port: smtp.port, username: "mailer", password: "wrong" }), {
      onError: (f) => failures.push(f),
    }).sendNow("summary");
    expect(bad.failed).toBe(1);
    expect(failures).toMatchObject([{ report: "summary", code: "AUTH", to: ["ops@example.com"] }]);
  });

  it("logs and counts an unreachable SMTP server", async () => {
    const gone = await startTestSmtpServer({ mode: "plain" });
    await gone.close();
    const failures: EmailFailure[] = [];
    const logger = testLogger();
    const outcome = await reports(emailConfig({ port: gone.port }), {
      logger,
      onError: (f) => failures.push(f),
    }).sendNow("violations");
    expect(outcome).toEqual({ report: "violations", sent: 0, failed: 1 });
    expect(failures[0]?.code).toBe("NETWORK");
    const line = logger.lines.find((l) => l.level === "error");
    expect(line?.fields).toMatchObject({ report: "violations", code: "NETWORK", port: gone.port });
  });
});

describe("email report schedule", () => {
  const fakeMailer = () => {
    const sent: MailMessage[] = [];
    const factory = (): MailTransport => ({
      sendMail: async (m) => {
        sent.push(m);
        return {};
      },
      close: () => undefined,
    });
    return { sent, factory };
  };

  it("runs on the cron schedule (UTC) of the injected clock, only when active", async () => {
    const store = await createStore({ type: "sqlite" });
    await seed(store);
    const clock = createManualClock(NOW);
    const { sent, factory } = fakeMailer();
    let active = true;
    const email = createEmailReports({
      config: emailConfig(
        {},
        { summary: reportConfig(), violations: reportConfig({ schedule: "30 8 * * 1" }) },
      ),
      store,
      clock,
      mailer: factory,
      isActive: () => active,
    });
    email.start();
    expect(new Date(email.nextRun("summary") ?? 0).toISOString()).toBe("2026-01-01T08:00:00.000Z");
    // 2026-01-01 is a Thursday: next Monday is the 5th.
    expect(new Date(email.nextRun("violations") ?? 0).toISOString()).toBe("2026-01-05T08:30:00.000Z");
    clock.advance(2 * 60 * 60 * 1000 - 1);
    await email.idle();
    expect(sent).toHaveLength(0);
    clock.advance(1);
    await email.idle();
    expect(sent.map((m) => m.subject)).toEqual(["Report Summary on dev-cluster"]);
    expect(new Date(email.nextRun("summary") ?? 0).toISOString()).toBe("2026-01-02T08:00:00.000Z");
    active = false;
    clock.advance(24 * 60 * 60 * 1000);
    await email.idle();
    expect(sent).toHaveLength(1);
    active = true;
    for (let day = 0; day < 3; day++) {
      clock.advance(24 * 60 * 60 * 1000);
      await email.idle();
    }
    clock.advance(30 * 60 * 1000);
    await email.idle();
    expect(sent.map((m) => m.subject)).toEqual([
      ...Array.from({ length: 4 }, () => "Report Summary on dev-cluster"),
      "Report Violations on dev-cluster",
    ]);
    await email.stop();
    expect(clock.pending()).toBe(0);
    expect(email.nextRun("summary")).toBeUndefined();
    await store.close();
  });

  it("counts a failing store as STORE and keeps the schedule", async () => {
    const store = await createStore({ type: "sqlite" });
    await store.close();
    const clock = createManualClock(NOW);
    const { sent, factory } = fakeMailer();
    const failures: EmailFailure[] = [];
    const email = createEmailReports({
      config: emailConfig({}, { violations: reportConfig({ enabled: false }) }),
      store,
      clock,
      mailer: factory,
      onError: (f) => failures.push(f),
    });
    email.start();
    expect(email.nextRun("violations")).toBeUndefined();
    clock.advance(2 * 60 * 60 * 1000);
    await email.idle();
    expect(sent).toHaveLength(0);
    expect(failures.map((f) => f.code)).toEqual(["STORE"]);
    expect(email.nextRun("summary")).toBe(Date.UTC(2026, 0, 2, 8));
    await email.stop();
  });

  it("refuses an unreadable CA file with the key", () => {
    expect(() =>
      createEmailReports({
        config: emailConfig({ certificate: "/nonexistent/ca.pem" }),
        store: {} as ReportStore,
      }),
    ).toThrow(/emailReports\.smtp\.certificate: cannot read \/nonexistent\/ca\.pem/);
  });
});
