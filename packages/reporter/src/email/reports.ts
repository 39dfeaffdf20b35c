/**
 * `createEmailReports`: the scheduled summary and violations emails. Each run reads the store, renders
 * one email per recipient group (the report's `to` with its `filter`, then every channel) and sends it
 * over SMTP. Failures (store, connection, TLS, authentication, rejected recipients) are logged and
 * reported through `onError`; they never throw out of a scheduled run.
 */
import { readFileSync } from "node:fs";
import { type Clock, createSystemClock } from "@kyverno-ts/api";
import { ConfigError } from "../config/read.js";
import { type Logger, silentLogger } from "../logger.js";
import type { ReportStore } from "../store/types.js";
import { buildSummary, buildViolations } from "./data.js";
import { renderEmail } from "./render.js";
import { type CronSchedule, scheduleCron } from "./schedule.js";
import {
  classifySmtpError,
  type EmailErrorCode,
  type MailerFactory,
  nodemailerFactory,
  type SmtpTimeouts,
  smtpTransportOptions,
} from "./transport.js";
import type { EmailChannel, EmailReportData, EmailReportKind, EmailReportsConfig } from "./types.js";
import { EMAIL_REPORT_KINDS } from "./types.js";

/** A failed report run or delivery, for logs and metrics. */
export interface EmailFailure {
  report: EmailReportKind;
  code: EmailErrorCode;
  message: string;
  /** Recipients of the failed message (empty when the report could not be built). */
  to: string[];
}

/** Options of {@link createEmailReports}. */
export interface EmailReportsOptions {
  config: EmailReportsConfig;
  /** The store's query layer. */
  store: ReportStore;
  /** Transport factory (default nodemailer SMTP). */
  mailer?: MailerFactory;
  clock?: Clock;
  logger?: Logger;
  /** Scheduled runs are skipped while this returns false (leader election); default always true. */
  isActive?: () => boolean;
  /** Metrics hook: called once per failed message or failed run. */
  onError?: (failure: EmailFailure) => void;
  /** Reads `smtp.certificate` (default `fs.readFileSync`). */
  readFile?: (path: string) => string;
  /** Most violations listed in one email (default 1000; the rest are counted). */
  maxViolations?: number;
  timeouts?: SmtpTimeouts;
}

/** What one run did. */
export interface EmailRunOutcome {
  report: EmailReportKind;
  /** Messages accepted by the server. */
  sent: number;
  /** Messages (or the whole run) that failed. */
  failed: number;
}

/** The scheduled email reports. */
export interface EmailReports {
  /** Starts the cron schedules of the enabled reports (idempotent). */
  start(): void;
  /** Stops the schedules and waits for running sends. */
  stop(): Promise<void>;
  /** Builds and sends a report now, whatever its schedule or `enabled`; never throws. */
  sendNow(kind: EmailReportKind): Promise<EmailRunOutcome>;
  /** When the report's next scheduled run is due (ms since the epoch); undefined when not scheduled. */
  nextRun(kind: EmailReportKind): number | undefined;
  /** Resolves when no run is in progress. */
  idle(): Promise<void>;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The recipient groups of a report: its own `to` / `filter`, then each channel with recipients. */
function channelsOf(config: EmailReportsConfig, kind: EmailReportKind): EmailChannel[] {
  const report = config[kind];
  return [{ to: report.to, filter: report.filter }, ...report.channels].filter((c) => c.to.length > 0);
}

/**
 * Creates the email reports. Throws a `ConfigError` (`emailReports.smtp.certificate`) when the CA file
 * cannot be read; nothing else is checked against the network before the first run.
 */
export function createEmailReports(options: EmailReportsOptions): EmailReports {
  const { config, store } = options;
  const clock = options.clock ?? createSystemClock({ unref: true });
  const logger = options.logger ?? silentLogger;
  const mailer = options.mailer ?? nodemailerFactory;
  const isActive = options.isActive ?? (() => true);
  const maxViolations = options.maxViolations ?? 1000;
  let ca: string | undefined;
  if (config.smtp.certificate) {
    try {
      ca = (options.readFile ?? ((p) => readFileSync(p, "utf8")))(config.smtp.certificate);
    } catch (error) {
      throw new ConfigError(
        "emailReports.smtp.certificate",
        `cannot read ${config.smtp.certificate}: ${message(error)}`,
      );
    }
  }
  const transportOptions = smtpTransportOptions(config.smtp, ca, options.timeouts);
  const schedules = new Map<EmailReportKind, CronSchedule>();
  const running = new Map<EmailReportKind, Promise<EmailRunOutcome>>();

  const fail = (failure: EmailFailure, error: unknown): void => {
    logger.error(
      {
        report: failure.report,
        code: failure.code,
        to: failure.to,
        host: config.smtp.host,
        port: config.smtp.port,
        err: failure.message,
        ...(typeof error === "object" && error !== null && "response" in error
          ? { response: String((error as { response: unknown }).response) }
          : {}),
      },
      `email ${failure.report} report failed`,
    );
    try {
      options.onError?.(failure);
    } catch {
      // A failing metrics hook must not turn into a failed run.
    }
  };

  const build = async (kind: EmailReportKind, channel: EmailChannel): Promise<EmailReportData> => {
    if (kind === "summary") return { kind, sources: await buildSummary(store, channel.filter) };
    return { kind, ...(await buildViolations(store, channel.filter, maxViolations)) };
  };

  const run = async (kind: EmailReportKind): Promise<EmailRunOutcome> => {
    const outcome: EmailRunOutcome = { report: kind, sent: 0, failed: 0 };
    const channels = channelsOf(config, kind);
    if (channels.length === 0) {
      logger.warn({ report: kind }, "email report has no recipients; nothing sent");
      return outcome;
    }
    let transport: ReturnType<MailerFactory> | undefined;
    try {
      transport = mailer(transportOptions);
      for (const channel of channels) {
        let email: ReturnType<typeof renderEmail>;
        try {
          email = renderEmail(await build(kind, channel), {
            titlePrefix: config.titlePrefix,
            clusterName: config.clusterName,
            generatedAt: clock.now(),
          });
        } catch (error) {
          outcome.failed++;
          fail({ report: kind, code: "STORE", message: message(error), to: channel.to }, error);
          continue;
        }
        try {
          await transport.sendMail({ from: config.smtp.from, to: channel.to, ...email });
          outcome.sent++;
          logger.info({ report: kind, to: channel.to, subject: email.subject }, "email report sent");
        } catch (error) {
          outcome.failed++;
          fail(
            { report: kind, code: classifySmtpError(error), message: message(error), to: channel.to },
            error,
          );
        }
      }
    } catch (error) {
      outcome.failed++;
      fail({ report: kind, code: "SMTP", message: message(error), to: [] }, error);
    } finally {
      try {
        transport?.close();
      } catch {
        // Closing an already failed transport is best effort.
      }
    }
    return outcome;
  };

  const track = (kind: EmailReportKind, work: Promise<EmailRunOutcome>): Promise<EmailRunOutcome> => {
    const settled = work.finally(() => {
      if (running.get(kind) === settled) running.delete(kind);
    });
    running.set(kind, settled);
    return settled;
  };

  const sendNow = async (kind: EmailReportKind): Promise<EmailRunOutcome> => {
    const previous = running.get(kind);
    if (previous) await previous.catch(() => undefined);
    return track(kind, run(kind));
  };

  const onSchedule = (kind: EmailReportKind, at: number): void => {
    if (!isActive()) {
      logger.debug({ report: kind }, "not the leader; scheduled email report skipped");
      return;
    }
    if (running.has(kind)) {
      logger.warn(
        { report: kind, due: new Date(at).toISOString() },
        "previous email report still running; skipped",
      );
      return;
    }
    void track(kind, run(kind));
  };

  return {
    start() {
      for (const kind of EMAIL_REPORT_KINDS) {
        const report = config[kind];
        if (!report.enabled || schedules.has(kind)) continue;
        const schedule = scheduleCron(report.schedule, clock, (at) => onSchedule(kind, at));
        schedules.set(kind, schedule);
        const next = schedule.next();
        logger.info(
          {
            report: kind,
            schedule: report.schedule,
            next: next === undefined ? null : new Date(next).toISOString(),
          },
          "email report scheduled",
        );
      }
    },
    async stop() {
      for (const schedule of schedules.values()) schedule.stop();
      schedules.clear();
      await Promise.allSettled([...running.values()]);
    },
    sendNow,
    nextRun: (kind) => schedules.get(kind)?.next(),
    async idle() {
      while (running.size > 0) await Promise.allSettled([...running.values()]);
    },
  };
}
