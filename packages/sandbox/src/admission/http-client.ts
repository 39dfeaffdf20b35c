/**
 * POSTing an AdmissionReview to a webhook over HTTPS, verifying the server against `caBundle`, bounded
 * by a timeout, with transport failures worded as Go's net/http and client-go word them.
 */
import { X509Certificate } from "node:crypto";
import { request } from "node:https";
import { isIP } from "node:net";
import type { WebhookClientConfig } from "./config.js";
import { callingReason, transport } from "./errors.js";

/** Maps a Service reference to a base URL (`https://127.0.0.1:8443`) where it can be reached. */
export type ServiceResolver = (namespace: string, name: string, port: number) => string;

/** Where a webhook is reached and how it is named in errors. */
export interface CallTarget {
  /** The URL as upstream prints it (`https://<svc>.<ns>.svc:<port><path>` for services), without query. */
  displayUrl: string;
  host: string;
  port: number;
  path: string;
  /** TLS server name to verify (the Service DNS name); defaults to `host`. */
  servername?: string;
  /** PEM text from `caBundle`; undefined means the platform's trusted roots, as upstream. */
  ca?: string;
}

/** A webhook's HTTP answer, or the transport error (already `Post "<url>": …`). */
export type PostResult =
  | { ok: true; status: number; contentType: string | undefined; body: string }
  | { ok: false; error: string };

function hostOf(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

/** Resolves `clientConfig` to a call target; `reason` is an ErrCallingWebhook reason when it cannot be. */
export function resolveTarget(
  cc: WebhookClientConfig,
  resolveService: ServiceResolver | undefined,
): { ok: true; target: CallTarget } | { ok: false; reason: string } {
  const ca = cc.caBundle === undefined ? undefined : Buffer.from(cc.caBundle, "base64").toString("utf8");
  if (ca !== undefined && !hasCertificate(ca)) {
    return {
      ok: false,
      reason: callingReason.noClient("unable to load root certificates: unable to parse bytes as PEM block"),
    };
  }
  const withCa = (t: CallTarget): CallTarget => (ca === undefined ? t : { ...t, ca });
  if (cc.service !== undefined) {
    const { namespace, name, port } = cc.service;
    const path = cc.service.path ?? "/";
    const dnsName = `${name}.${namespace}.svc`;
    const displayUrl = `https://${dnsName}:${port}${path}`;
    if (resolveService === undefined) {
      return { ok: true, target: withCa({ displayUrl, host: dnsName, port, path, servername: dnsName }) };
    }
    let base: URL;
    try {
      base = new URL(resolveService(namespace, name, port));
    } catch (err) {
      return { ok: false, reason: callingReason.noClient(err instanceof Error ? err.message : String(err)) };
    }
    const target = {
      displayUrl,
      host: hostOf(base),
      port: Number(base.port || 443),
      path,
      servername: dnsName,
    };
    return { ok: true, target: withCa(target) };
  }
  if (cc.url !== undefined) {
    let url: URL;
    try {
      url = new URL(cc.url);
    } catch {
      return { ok: false, reason: callingReason.noClient(`invalid webhook url "${cc.url}"`) };
    }
    if (url.protocol !== "https:") {
      return { ok: false, reason: callingReason.noClient("'https' is the only allowed URL scheme") };
    }
    const displayUrl = cc.url.replace(/[?#].*$/, "");
    const target = { displayUrl, host: hostOf(url), port: Number(url.port || 443), path: url.pathname };
    return { ok: true, target: withCa(target) };
  }
  return {
    ok: false,
    reason: callingReason.noClient("neither clientConfig.url nor clientConfig.service is set"),
  };
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** Whether a PEM bundle holds at least one parsable certificate (Go's AppendCertsFromPEM). */
function hasCertificate(pem: string): boolean {
  return (pem.match(PEM_CERTIFICATE) ?? []).some((block) => {
    try {
      new X509Certificate(block);
      return true;
    } catch {
      return false;
    }
  });
}

interface NodeError {
  code?: string;
  message: string;
  address?: string;
  port?: number;
  host?: string;
  cert?: { subjectaltname?: string };
}

const UNKNOWN_AUTHORITY = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_GET_ISSUER_CERT",
  "CERT_SIGNATURE_FAILURE",
  "CERT_UNTRUSTED",
]);

/** Go's x509.HostnameError text from Node's `ERR_TLS_CERT_ALTNAME_INVALID`. */
function hostnameError(host: string, subjectAltName: string | undefined): string {
  const names = (subjectAltName ?? "").split(", ").filter((n) => n !== "");
  const wantIp = isIP(host) !== 0;
  const valid = names
    .filter((n) => (wantIp ? n.startsWith("IP Address:") : n.startsWith("DNS:")))
    .map((n) => n.slice(n.indexOf(":") + 1));
  if (wantIp && valid.length === 0)
    return `cannot validate certificate for ${host} because it doesn't contain any IP SANs`;
  if (valid.length === 0) return `certificate is not valid for any names, but wanted to match ${host}`;
  return `certificate is valid for ${valid.join(", ")}, not ${host}`;
}

function describe(err: NodeError, target: CallTarget): string {
  const hostPort = `${err.address ?? target.host}:${err.port ?? target.port}`;
  const code = err.code ?? "";
  if (code === "ECONNREFUSED") return transport.refused(hostPort);
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return transport.noSuchHost(target.host);
  if (UNKNOWN_AUTHORITY.has(code)) return transport.unknownAuthority;
  if (code === "CERT_HAS_EXPIRED" || code === "CERT_NOT_YET_VALID") return transport.expired;
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID") {
    return transport.hostname(hostnameError(target.servername ?? target.host, err.cert?.subjectaltname));
  }
  if (code === "ERR_SSL_WRONG_VERSION_NUMBER" || code === "EPROTO") {
    return "http: server gave HTTP response to HTTPS client";
  }
  if (code === "ECONNRESET")
    return err.message === "socket hang up" ? transport.eof : transport.reset(hostPort);
  return err.message;
}

/**
 * POSTs `body` (JSON) to `target` with `?timeout=<n>s` as client-go sets it, resolving (never
 * rejecting) within `timeoutMs`: a slow or silent webhook ends in `context deadline exceeded`, an
 * aborted `signal` in `context canceled`. Connections are not pooled.
 */
export function postJson(
  target: CallTarget,
  body: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<PostResult> {
  const timeoutSeconds = Math.max(1, Math.ceil(timeoutMs / 1000));
  const query = `?timeout=${timeoutSeconds}s`;
  const url = `${target.displayUrl}${query}`;
  return new Promise((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (result: PostResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(result);
    };
    const fail = (cause: string): void => finish({ ok: false, error: transport.post(url, cause) });
    const onAbort = (): void => {
      fail(transport.canceled);
      req.destroy();
    };
    const headers: Record<string, string | number> = {
      "Content-Type": "application/json",
      Accept: "application/json, */*",
      "Content-Length": Buffer.byteLength(body),
    };
    if (target.servername !== undefined) headers.Host = `${target.servername}:${target.port}`;
    const req = request({
      host: target.host,
      port: target.port,
      path: `${target.path}${query}`,
      method: "POST",
      headers,
      agent: false,
      ...(target.ca === undefined ? {} : { ca: target.ca }),
      ...(target.servername === undefined ? {} : { servername: target.servername }),
    });
    req.on("error", (err: NodeError) => fail(describe(err, target)));
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", (err: NodeError) => fail(describe(err, target)));
      res.on("end", () => {
        const contentType = res.headers["content-type"];
        const text = Buffer.concat(chunks).toString("utf8");
        finish({ ok: true, status: res.statusCode ?? 0, contentType, body: text });
      });
    });
    timer = setTimeout(() => {
      fail(transport.deadline);
      req.destroy();
    }, timeoutMs);
    if (signal?.aborted === true) {
      onAbort();
      return;
    }
    signal?.addEventListener("abort", onAbort, { once: true });
    req.end(body);
  });
}
