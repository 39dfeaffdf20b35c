/**
 * SMTP delivery: the transport options derived from `emailReports.smtp` and the injectable factory
 * (nodemailer's SMTP transport by default), plus a classification of delivery errors for metrics.
 */
import nodemailer from "nodemailer";
import type { SmtpConfig } from "./types.js";

/** The SMTP transport options this module uses (a subset of nodemailer's `SMTPTransport.Options`). */
export interface SmtpTransportOptions {
  host: string;
  port: number;
  /** Implicit TLS from the first byte (`ssl` / `tls`). */
  secure: boolean;
  /** Fail unless the server upgrades with STARTTLS (`starttls`). */
  requireTLS: boolean;
  /** Never upgrade, even when offered (`none`). */
  ignoreTLS: boolean;
  auth?: { user: string; pass: string };
  tls: { rejectUnauthorized: boolean; ca?: string; servername?: string };
  connectionTimeout: number;
  greetingTimeout: number;
  socketTimeout: number;
}

/** One message to send. */
export interface MailMessage {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
}

/** What the reports need from a transport. */
export interface MailTransport {
  sendMail(message: MailMessage): Promise<unknown>;
  close(): void;
}

/** Creates a transport; injected so tests (and other mailers) can replace nodemailer. */
export type MailerFactory = (options: SmtpTransportOptions) => MailTransport;

/** The default {@link MailerFactory}: nodemailer's SMTP transport (one connection per message). */
export const nodemailerFactory: MailerFactory = (options) => {
  const transport = nodemailer.createTransport(options);
  return {
    sendMail: (message) => transport.sendMail(message),
    close: () => transport.close(),
  };
};

const IP = /^(\d{1,3}\.){3}\d{1,3}$|:/;

/** Timeouts of one delivery, in milliseconds. */
export interface SmtpTimeouts {
  connectionTimeout?: number;
  greetingTimeout?: number;
  socketTimeout?: number;
}

/**
 * Transport options for `smtp`: `ssl` / `tls` → implicit TLS, `starttls` → mandatory STARTTLS,
 * `none` → plain, `""` → STARTTLS when offered. `skipTLS` disables certificate verification; `ca` is
 * the PEM content of `smtp.certificate`.
 */
export function smtpTransportOptions(
  smtp: SmtpConfig,
  ca: string | undefined,
  timeouts: SmtpTimeouts = {},
): SmtpTransportOptions {
  const implicit = smtp.encryption === "ssl" || smtp.encryption === "tls";
  const options: SmtpTransportOptions = {
    host: smtp.host,
    port: smtp.port,
    secure: implicit,
    requireTLS: smtp.encryption === "starttls",
    ignoreTLS: smtp.encryption === "none",
    tls: {
      rejectUnauthorized: !smtp.skipTLS,
      ...(ca ? { ca } : {}),
      ...(IP.test(smtp.host) ? {} : { servername: smtp.host }),
    },
    connectionTimeout: timeouts.connectionTimeout ?? 10_000,
    greetingTimeout: timeouts.greetingTimeout ?? 10_000,
    socketTimeout: timeouts.socketTimeout ?? 30_000,
  };
  if (smtp.username) options.auth = { user: smtp.username, pass: smtp.password };
  return options;
}

/** Error codes counted for email deliveries. */
export type EmailErrorCode = "AUTH" | "TLS" | "NETWORK" | "TIMEOUT" | "REJECTED" | "STORE" | "SMTP";

/** Classifies a nodemailer / socket error. */
export function classifySmtpError(error: unknown): EmailErrorCode {
  const e = (typeof error === "object" && error !== null ? error : {}) as {
    code?: unknown;
    responseCode?: unknown;
    message?: unknown;
  };
  const code = typeof e.code === "string" ? e.code : "";
  const message = typeof e.message === "string" ? e.message : "";
  if (code === "EAUTH" || code === "ENOAUTH") return "AUTH";
  if (code === "ETLS" || /certificate|self[- ]signed|TLS|SSL/i.test(message)) return "TLS";
  if (code === "ETIMEDOUT" || /timeout/i.test(message)) return "TIMEOUT";
  if (code === "EENVELOPE" || code === "EMESSAGE") return "REJECTED";
  if (code === "ECONNECTION" || code === "ESOCKET" || code === "EDNS" || code === "ECONNREFUSED")
    return "NETWORK";
  return "SMTP";
}
