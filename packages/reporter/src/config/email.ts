/**
 * Reads `emailReports` (Policy Reporter's Helm values keys). Upstream runs the reports as CronJobs;
 * here the reporter schedules them itself, so the CronJob keys (`resources`, `activeDeadlineSeconds`,
 * `backoffLimit`, …) are accepted and ignored, and `graphAPI` is reported as not supported.
 */
import { validateCron } from "../email/schedule.js";
import type {
  EmailChannel,
  EmailReportConfig,
  EmailReportFilter,
  EmailReportsConfig,
  SmtpConfig,
} from "../email/types.js";
import { ConfigError, type Section, type WarningSink } from "./read.js";

/** The chart's default schedule of both reports. */
export const DEFAULT_EMAIL_SCHEDULE = "0 8 * * *";

const ADDRESS = /^[^\s@<>]+@[^\s@<>]+$|^[^<>]*<[^\s@<>]+@[^\s@<>]+>$/;

function readSmtp(s: Section): SmtpConfig {
  const out: SmtpConfig = {
    secret: s.str("secret"),
    host: s.str("host"),
    port: s.int("port", 465, { min: 1, max: 65535 }),
    username: s.str("username"),
    password: s.str("password"),
    from: s.str("from"),
    encryption: s.oneOf("encryption", ["", "ssl", "tls", "starttls", "none"], ""),
    skipTLS: s.bool("skipTLS", false),
    certificate: s.str("certificate"),
  };
  if (out.from !== "" && !ADDRESS.test(out.from)) {
    throw new ConfigError(s.at("from"), `not an email address: ${JSON.stringify(out.from)}`);
  }
  s.warnUnknown();
  return out;
}

function readFilter(s: Section): EmailReportFilter {
  const out: EmailReportFilter = {};
  const namespaces = s.includeExclude("namespaces");
  const sources = s.includeExclude("sources");
  if (namespaces) out.namespaces = namespaces;
  if (sources) out.sources = sources;
  if (s.bool("disableClusterReports", false)) out.disableClusterReports = true;
  s.warnUnknown();
  return out;
}

function readRecipients(s: Section): string[] {
  const to = s.strList("to");
  to.forEach((address, i) => {
    if (!ADDRESS.test(address.trim())) {
      throw new ConfigError(s.at(`to[${i}]`), `not an email address: ${JSON.stringify(address)}`);
    }
  });
  return to.map((a) => a.trim());
}

function readChannel(s: Section): EmailChannel {
  const out: EmailChannel = { to: readRecipients(s), filter: readFilter(s.section("filter")) };
  if (out.to.length === 0) throw new ConfigError(s.at("to"), "a channel needs at least one recipient");
  s.warnUnknown();
  return out;
}

function readReport(s: Section): EmailReportConfig {
  const out: EmailReportConfig = {
    enabled: s.bool("enabled", false),
    schedule: s.str("schedule", DEFAULT_EMAIL_SCHEDULE).trim() || DEFAULT_EMAIL_SCHEDULE,
    to: readRecipients(s),
    filter: readFilter(s.section("filter")),
    channels: s.sections("channels").map(readChannel),
  };
  try {
    validateCron(out.schedule);
  } catch (error) {
    throw new ConfigError(s.at("schedule"), `invalid cron expression: ${(error as Error).message}`);
  }
  // CronJob settings of the chart: meaningless for an in-process schedule.
  for (const key of ["activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished"]) s.int(key, 0);
  s.str("restartPolicy");
  if (out.enabled && out.to.length === 0 && out.channels.length === 0) {
    throw new ConfigError(s.at("to"), `${s.path}.enabled is true: list at least one recipient`);
  }
  s.warnUnknown();
  return out;
}

/** Validates `emailReports`; throws a {@link ConfigError} naming the key of the first invalid value. */
export function readEmailReports(s: Section, warn: WarningSink): EmailReportsConfig {
  const graph = s.section("graphAPI");
  if (graph.bool("enabled", false))
    warn(graph.at("enabled"), "Microsoft Graph API is not supported; SMTP is used");
  s.raw("resources");
  const out: EmailReportsConfig = {
    clusterName: s.str("clusterName"),
    titlePrefix: s.str("titlePrefix", "Report"),
    smtp: readSmtp(s.section("smtp")),
    summary: readReport(s.section("summary")),
    violations: readReport(s.section("violations")),
  };
  if (out.summary.enabled || out.violations.enabled) {
    const smtp = out.smtp;
    if (smtp.host === "" && smtp.secret === "") {
      throw new ConfigError("emailReports.smtp.host", "required when an email report is enabled");
    }
    if (smtp.from === "" && smtp.secret === "") {
      throw new ConfigError("emailReports.smtp.from", "required when an email report is enabled");
    }
  }
  s.warnUnknown();
  return out;
}
