/**
 * Scheduled email reports (summary and violations) over SMTP: the public surface of `email/`.
 */
export { buildSummary, buildViolations, VIOLATION_STATUSES } from "./data.js";
export { emailSubject, escapeHtml, type RenderContext, renderEmail } from "./render.js";
export {
  createEmailReports,
  type EmailFailure,
  type EmailReports,
  type EmailReportsOptions,
  type EmailRunOutcome,
} from "./reports.js";
export { type CronSchedule, nextCronRun, scheduleCron, validateCron } from "./schedule.js";
export {
  classifySmtpError,
  type EmailErrorCode,
  type MailerFactory,
  type MailMessage,
  type MailTransport,
  nodemailerFactory,
  type SmtpTimeouts,
  type SmtpTransportOptions,
  smtpTransportOptions,
} from "./transport.js";
export * from "./types.js";
