/**
 * The webhook's certificates, as upstream manages them: a self-signed CA (365 days) and a serving
 * certificate it signs (150 days), renewed 15 days before expiry. The certificates themselves are made
 * by `@kyverno-ts/k8s` (the repository's one certificate authority code); this module holds upstream's
 * validity and renewal policy.
 */
import {
  type CertificatePair,
  certificateValidity,
  generateCaCertificate,
  issueCertificate,
} from "@kyverno-ts/k8s";
import type { ServerClock } from "../../clock.js";

export type { CertificatePair };
export { certificateValidity };

/** Upstream's CA validity. */
export const CA_VALIDITY_DAYS = 365;
/** Upstream's serving certificate validity. */
export const SERVING_VALIDITY_DAYS = 150;
/** Upstream renews a certificate this many days before it expires. */
export const RENEW_BEFORE_DAYS = 15;

const DAY_MS = 24 * 60 * 60 * 1000;

/** The CA and the serving certificate it signed. */
export interface CertificateBundle {
  ca: CertificatePair;
  serving: CertificatePair;
}

/** Options of `generateCertificates`. */
export interface GenerateCertificatesOptions {
  /** DNS names and IP addresses of the serving certificate (e.g. `kyverno-svc.kyverno.svc`, `127.0.0.1`). */
  hosts: readonly string[];
  clock: Pick<ServerClock, "now">;
  caValidityDays?: number;
  servingValidityDays?: number;
  commonName?: string;
}

/** Creates a self-signed CA certificate and key. */
export async function generateCertificateAuthority(options: {
  clock: Pick<ServerClock, "now">;
  validityDays?: number;
  commonName?: string;
}): Promise<CertificatePair> {
  return generateCaCertificate({
    now: options.clock.now(),
    validityDays: options.validityDays ?? CA_VALIDITY_DAYS,
    commonName: options.commonName ?? "*.kyverno.svc",
  });
}

/** Issues a serving certificate for `hosts`, signed by `ca` (which may have been read back from a Secret). */
export async function issueServingCertificate(options: {
  ca: Pick<CertificatePair, "certPem" | "keyPem">;
  hosts: readonly string[];
  clock: Pick<ServerClock, "now">;
  validityDays?: number;
  commonName?: string;
}): Promise<CertificatePair> {
  return issueCertificate({
    ca: options.ca,
    hosts: options.hosts,
    now: options.clock.now(),
    validityDays: options.validityDays ?? SERVING_VALIDITY_DAYS,
    ...(options.commonName !== undefined ? { commonName: options.commonName } : {}),
  });
}

/** Generates a fresh CA and a serving certificate for `hosts`. */
export async function generateCertificates(options: GenerateCertificatesOptions): Promise<CertificateBundle> {
  const ca = await generateCertificateAuthority({
    clock: options.clock,
    ...(options.caValidityDays !== undefined ? { validityDays: options.caValidityDays } : {}),
  });
  const serving = await issueServingCertificate({
    ca,
    hosts: options.hosts,
    clock: options.clock,
    ...(options.servingValidityDays !== undefined ? { validityDays: options.servingValidityDays } : {}),
    ...(options.commonName !== undefined ? { commonName: options.commonName } : {}),
  });
  return { ca, serving };
}

/** True when a certificate expires within `renewBeforeDays` (default 15) of `now`, or is not yet valid. */
export function needsRenewal(certPem: string, now: Date, renewBeforeDays = RENEW_BEFORE_DAYS): boolean {
  const { notBefore, notAfter } = certificateValidity(certPem);
  return (
    notAfter.getTime() - now.getTime() <= renewBeforeDays * DAY_MS || notBefore.getTime() > now.getTime()
  );
}

/** The `caBundle` of a webhook configuration: the base64 of the CA certificate PEM. */
export function caBundle(caCertPem: string): string {
  return Buffer.from(caCertPem).toString("base64");
}
