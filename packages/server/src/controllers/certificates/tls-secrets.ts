/**
 * The two TLS Secrets upstream keeps in Kyverno's namespace: the CA (`<svc>.<ns>.svc.kyverno-tls-ca`)
 * and the serving pair (`<svc>.<ns>.svc.kyverno-tls-pair`), both `kubernetes.io/tls`. Reading them
 * back, checking them (validity, key match, issuer, host names) and the `caBundle` they give.
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import { isIP } from "node:net";
import type { KubeObject } from "@kyverno-ts/api";
import { caBundle, RENEW_BEFORE_DAYS } from "./certificates.js";

/** The names of the two Secrets. */
export interface TlsSecretNames {
  ca: string;
  pair: string;
}

/** A certificate (PEM, possibly a bundle) and its key, as stored in a `kubernetes.io/tls` Secret. */
export interface TlsData {
  certPem: string;
  keyPem: string;
}

/** The label upstream puts on its certificate Secrets. */
export const CERT_MANAGED_BY_LABEL = { "cert.kyverno.io/managed-by": "kyverno" } as const;

const DAY_MS = 24 * 60 * 60 * 1000;
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----\n?/g;

/** Upstream's Secret names for a Service: `<svc>.<ns>.svc.kyverno-tls-ca` / `-pair`. */
export function tlsSecretNames(serviceName: string, namespace: string): TlsSecretNames {
  const base = `${serviceName}.${namespace}.svc`;
  return { ca: `${base}.kyverno-tls-ca`, pair: `${base}.kyverno-tls-pair` };
}

/** DNS names of the serving certificate (upstream's three Service names) plus extra hosts. */
export function servingHosts(
  serviceName: string,
  namespace: string,
  extra: readonly string[] = [],
): string[] {
  return [
    ...new Set([serviceName, `${serviceName}.${namespace}`, `${serviceName}.${namespace}.svc`, ...extra]),
  ];
}

/** `tls.crt` / `tls.key` of a Secret, decoded; undefined when either is missing. */
export function readTlsSecret(secret: KubeObject | undefined): TlsData | undefined {
  const data = secret?.data;
  if (data === null || typeof data !== "object" || Array.isArray(data)) return undefined;
  const crt = data["tls.crt"];
  const key = data["tls.key"];
  if (typeof crt !== "string" || typeof key !== "string" || crt === "" || key === "") return undefined;
  return {
    certPem: Buffer.from(crt, "base64").toString("utf8"),
    keyPem: Buffer.from(key, "base64").toString("utf8"),
  };
}

/** A `kubernetes.io/tls` Secret holding `data` (with `resourceVersion` for a conditional update). */
export function tlsSecret(
  name: string,
  namespace: string,
  data: TlsData,
  resourceVersion?: string,
): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name,
      namespace,
      labels: { ...CERT_MANAGED_BY_LABEL },
      ...(resourceVersion ? { resourceVersion } : {}),
    },
    type: "kubernetes.io/tls",
    data: {
      "tls.crt": Buffer.from(data.certPem).toString("base64"),
      "tls.key": Buffer.from(data.keyPem).toString("base64"),
    },
  };
}

/** The certificates of a PEM bundle, in order. */
export function splitPem(bundle: string): string[] {
  return (bundle.match(PEM_CERTIFICATE) ?? []).map((p) => (p.endsWith("\n") ? p : `${p}\n`));
}

function parse(pem: string): X509Certificate | undefined {
  try {
    return new X509Certificate(pem);
  } catch {
    return undefined;
  }
}

/** The certificates of a PEM bundle that read and have not expired at `now`, in order. */
export function validCertificates(bundle: string, now: Date): string[] {
  return splitPem(bundle).filter((pem) => {
    const cert = parse(pem);
    return cert !== undefined && new Date(cert.validTo).getTime() > now.getTime();
  });
}

/** The `caBundle` for webhook configurations: every CA of the bundle still valid at `now`. */
export function caBundleOf(caCertsPem: string, now: Date): string | undefined {
  const valid = validCertificates(caCertsPem, now);
  return valid.length > 0 ? caBundle(valid.join("")) : undefined;
}

function expiresSoon(cert: X509Certificate, now: Date): boolean {
  const notAfter = new Date(cert.validTo).getTime();
  const notBefore = new Date(cert.validFrom).getTime();
  return notAfter - now.getTime() <= RENEW_BEFORE_DAYS * DAY_MS || notBefore > now.getTime();
}

function keyMatches(cert: X509Certificate, keyPem: string): boolean {
  try {
    return cert.checkPrivateKey(createPrivateKey(keyPem));
  } catch {
    return false;
  }
}

/**
 * Why the CA must be (re)generated, or undefined when it is usable: the first certificate of `tls.crt`
 * is a CA, matches `tls.key` and is more than 15 days from expiry.
 */
export function caProblem(data: TlsData | undefined, now: Date): string | undefined {
  if (data === undefined) return "no CA yet";
  const [first] = splitPem(data.certPem);
  const cert = first === undefined ? undefined : parse(first);
  if (cert === undefined) return "the CA certificate cannot be read";
  if (!cert.ca) return "the CA certificate is not a CA";
  if (!keyMatches(cert, data.keyPem)) return "the CA key does not match its certificate";
  if (expiresSoon(cert, now)) return `the CA expires on ${cert.validTo}`;
  return undefined;
}

function coversHost(cert: X509Certificate, host: string): boolean {
  return isIP(host) !== 0 ? cert.checkIP(host) !== undefined : cert.checkHost(host) !== undefined;
}

/**
 * Why the serving pair must be (re)issued, or undefined when it is usable: it reads, matches its key,
 * was signed by the current CA (`caPem`, the first of the CA bundle), names every host and is more
 * than 15 days from expiry.
 */
export function pairProblem(
  data: TlsData | undefined,
  caPem: string,
  hosts: readonly string[],
  now: Date,
): string | undefined {
  if (data === undefined) return "no serving certificate yet";
  const [first] = splitPem(data.certPem);
  const cert = first === undefined ? undefined : parse(first);
  const ca = parse(splitPem(caPem)[0] ?? "");
  if (cert === undefined) return "the serving certificate cannot be read";
  if (!keyMatches(cert, data.keyPem)) return "the serving key does not match its certificate";
  if (ca === undefined || !cert.checkIssued(ca) || !cert.verify(ca.publicKey))
    return "the serving certificate was not signed by the current CA";
  const missing = hosts.filter((h) => !coversHost(cert, h));
  if (missing.length > 0) return `the serving certificate does not name ${missing.join(", ")}`;
  if (expiresSoon(cert, now)) return `the serving certificate expires on ${cert.validTo}`;
  return undefined;
}
