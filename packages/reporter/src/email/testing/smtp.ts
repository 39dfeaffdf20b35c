/**
 * A real local SMTP server for tests (smtp-server on 127.0.0.1, a free port): plain, STARTTLS or
 * implicit TLS, optional authentication. Received messages are kept with their envelope and whether
 * the session was encrypted; {@link parseMime} decodes the text and HTML parts.
 */
import type { AddressInfo } from "node:net";
import { SMTPServer, type SMTPServerOptions } from "smtp-server";

/** One received message. */
export interface ReceivedMail {
  from: string;
  to: string[];
  /** True when the session ran over TLS (implicit or after STARTTLS). */
  secure: boolean;
  /** The authenticated user, if any. */
  user: string | undefined;
  raw: string;
}

/** A running test server. */
export interface TestSmtpServer {
  port: number;
  received: ReceivedMail[];
  /** Resolves once `count` messages were received (rejects after `ms`). */
  waitFor(count: number, ms?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

/** Options of {@link startTestSmtpServer}. */
export interface TestSmtpOptions {
  mode: "plain" | "starttls" | "tls";
  /** PEM certificate and key (required for `starttls` and `tls`). */
  tls?: { certPem: string; keyPem: string };
  /** When set, AUTH is required and only these credentials pass. */
  credentials?: { username: string; password: string };
}

/** Starts a server on 127.0.0.1 with a free port. */
export async function startTestSmtpServer(options: TestSmtpOptions): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  const creds = options.credentials;
  const config: SMTPServerOptions = {
    logger: false,
    secure: options.mode === "tls",
    authOptional: creds === undefined,
    allowInsecureAuth: true,
    disabledCommands: [...(options.mode === "plain" ? ["STARTTLS"] : []), ...(creds ? [] : ["AUTH"])],
    ...(options.tls ? { key: options.tls.keyPem, cert: options.tls.certPem } : {}),
    onAuth(auth, _session, callback) {
      if (creds && auth.username === creds.username && auth.password === creds.password) {
        callback(null, { user: auth.username });
        return;
      }
      callback(new Error("Invalid username or password"));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const mailFrom = session.envelope.mailFrom;
        received.push({
          from: mailFrom === false ? "" : mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          secure: session.secure,
          user: typeof session.user === "string" ? session.user : undefined,
          raw: Buffer.concat(chunks).toString("utf8"),
        });
        callback();
      });
    },
  };
  const server = new SMTPServer(config);
  // Clients that give up (bad certificate, wrong password) surface as server errors: expected here.
  server.on("error", () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    received,
    async waitFor(count, ms = 5000) {
      const deadline = Date.now() + ms;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} messages, got ${received.length}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      return received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A decoded message: headers of the top level, and the text and HTML parts. */
export interface ParsedMail {
  headers: Record<string, string>;
  text: string;
  html: string;
}

function splitHead(raw: string): { headers: Record<string, string>; body: string } {
  const at = raw.indexOf("\r\n\r\n");
  const head = at < 0 ? raw : raw.slice(0, at);
  const body = at < 0 ? "" : raw.slice(at + 4);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, " ").split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body };
}

function decode(body: string, encoding: string | undefined): string {
  const e = (encoding ?? "").toLowerCase();
  if (e === "base64") return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  if (e === "quoted-printable") {
    const joined = body.replace(/=\r\n/g, "");
    const bytes: number[] = [];
    for (let i = 0; i < joined.length; i++) {
      const hex = joined.slice(i + 1, i + 3);
      if (joined[i] === "=" && /^[0-9A-F]{2}$/i.test(hex)) {
        bytes.push(Number.parseInt(hex, 16));
        i += 2;
      } else bytes.push(...Buffer.from(joined[i] ?? "", "utf8"));
    }
    return Buffer.from(bytes).toString("utf8");
  }
  return body;
}

/** Parses a (multipart/alternative) message as nodemailer writes it. */
export function parseMime(raw: string): ParsedMail {
  const top = splitHead(raw);
  const out: ParsedMail = { headers: top.headers, text: "", html: "" };
  const boundary = /boundary="?([^";]+)"?/.exec(top.headers["content-type"] ?? "")?.[1];
  const parts = boundary
    ? top.body.split(`--${boundary}`).slice(1, -1)
    : [raw.slice(0, raw.indexOf("\r\n\r\n") + 4) + top.body];
  for (const part of parts) {
    const p = splitHead(part.replace(/^\r\n/, ""));
    const type = p.headers["content-type"] ?? "";
    const content = decode(p.body.replace(/\r\n$/, ""), p.headers["content-transfer-encoding"]).replace(
      /\r\n/g,
      "\n",
    );
    if (type.startsWith("text/html")) out.html = content;
    else if (type.startsWith("text/plain")) out.text = content;
  }
  return out;
}
