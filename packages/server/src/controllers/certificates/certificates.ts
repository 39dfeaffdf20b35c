/**
 * The webhook's certificates, as upstream manages them: a self-signed CA (365 days) and a serving
 * certificate it signs (150 days), renewed 15 days before expiry. Made with WebCrypto and
 * @peculiar/x509 (ECDSA P-256); the CA can be reloaded from PEM to issue a new serving certificate.
 */
import { createPrivateKey, X509Certificate as NodeX509, webcrypto } from "node:crypto";
import { isIP } from "node:net";
import type { ServerClock } from "../../clock.js";
import "reflect-metadata";

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;
type X509Module = typeof import("@peculiar/x509");

/** Upstream's CA validity. */
export const CA_VALIDITY_DAYS = 365;
/** Upstream's serving certificate validity. */
export const SERVING_VALIDITY_DAYS = 150;
/** Upstream renews a certificate this many days before it expires. */
export const RENEW_BEFORE_DAYS = 15;

const DAY_MS = 24 * 60 * 60 * 1000;
const KEY_ALGORITHM: webcrypto.EcKeyGenParams = { name: "ECDSA", namedCurve: "P-256" };
const SIGNING: webcrypto.EcdsaParams = { name: "ECDSA", hash: "SHA-256" };
/** Allow for clock skew between the issuer and the API server. */
const BACKDATE_MS = 5 * 60 * 1000;

/** A PEM certificate, its PEM (PKCS#8) key and its validity window. */
export interface CertificatePair {
  certPem: string;
  keyPem: string;
  notBefore: Date;
  notAfter: Date;
}

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

async function x509(): Promise<X509Module> {
  return import("@peculiar/x509");
}

async function keyPem(mod: X509Module, key: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey("pkcs8", key);
  return mod.PemConverter.encode(der, "PRIVATE KEY");
}

/** Creates a self-signed CA certificate and key. */
export async function generateCertificateAuthority(options: {
  clock: Pick<ServerClock, "now">;
  validityDays?: number;
  commonName?: string;
}): Promise<CertificatePair> {
  const mod = await x509();
  const keys = (await webcrypto.subtle.generateKey(KEY_ALGORITHM, true, ["sign", "verify"])) as CryptoKeyPair;
  const now = options.clock.now();
  const notBefore = new Date(now - BACKDATE_MS);
  const notAfter = new Date(now + (options.validityDays ?? CA_VALIDITY_DAYS) * DAY_MS);
  const cert = await mod.X509CertificateGenerator.createSelfSigned(
    {
      name: `CN=${options.commonName ?? "*.kyverno.svc"}`,
      notBefore,
      notAfter,
      keys,
      signingAlgorithm: SIGNING,
      extensions: [
        new mod.BasicConstraintsExtension(true, undefined, true),
        new mod.KeyUsagesExtension(
          mod.KeyUsageFlags.keyCertSign | mod.KeyUsageFlags.cRLSign | mod.KeyUsageFlags.digitalSignature,
          true,
        ),
        await mod.SubjectKeyIdentifierExtension.create(keys.publicKey, false, webcrypto),
      ],
    },
    webcrypto,
  );
  return { certPem: cert.toString("pem"), keyPem: await keyPem(mod, keys.privateKey), notBefore, notAfter };
}

/** Imports a PEM private key (EC P-256 or RSA) as a WebCrypto signing key. */
function signingKey(pem: string): {
  key: CryptoKey;
  algorithm: webcrypto.EcdsaParams | webcrypto.RsaHashedImportParams;
} {
  const keyObject = createPrivateKey(pem);
  if (keyObject.asymmetricKeyType === "rsa") {
    const algorithm = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" };
    return { key: keyObject.toCryptoKey(algorithm, false, ["sign"]) as CryptoKey, algorithm };
  }
  return { key: keyObject.toCryptoKey(KEY_ALGORITHM, false, ["sign"]) as CryptoKey, algorithm: SIGNING };
}

/** Issues a serving certificate for `hosts`, signed by `ca` (which may have been read back from a Secret). */
export async function issueServingCertificate(options: {
  ca: Pick<CertificatePair, "certPem" | "keyPem">;
  hosts: readonly string[];
  clock: Pick<ServerClock, "now">;
  validityDays?: number;
  commonName?: string;
}): Promise<CertificatePair> {
  const mod = await x509();
  const caCert = new mod.X509Certificate(options.ca.certPem);
  const issuer = signingKey(options.ca.keyPem);
  const keys = (await webcrypto.subtle.generateKey(KEY_ALGORITHM, true, ["sign", "verify"])) as CryptoKeyPair;
  const now = options.clock.now();
  const notBefore = new Date(now - BACKDATE_MS);
  const caNotAfter = caCert.notAfter.getTime();
  // A serving certificate never outlives its CA.
  const notAfter = new Date(
    Math.min(now + (options.validityDays ?? SERVING_VALIDITY_DAYS) * DAY_MS, caNotAfter),
  );
  const names = options.hosts.map((h) =>
    isIP(h) !== 0 ? { type: "ip" as const, value: h } : { type: "dns" as const, value: h },
  );
  const cert = await mod.X509CertificateGenerator.create(
    {
      subject: `CN=${options.commonName ?? options.hosts[0] ?? "localhost"}`,
      issuer: caCert.subject,
      notBefore,
      notAfter,
      publicKey: keys.publicKey,
      signingKey: issuer.key,
      signingAlgorithm: issuer.algorithm,
      extensions: [
        new mod.BasicConstraintsExtension(false, undefined, true),
        new mod.KeyUsagesExtension(
          mod.KeyUsageFlags.digitalSignature | mod.KeyUsageFlags.keyEncipherment,
          true,
        ),
        new mod.ExtendedKeyUsageExtension([mod.ExtendedKeyUsage.serverAuth], false),
        new mod.SubjectAlternativeNameExtension(names, false),
        await mod.AuthorityKeyIdentifierExtension.create(caCert.publicKey, false, webcrypto),
      ],
    },
    webcrypto,
  );
  return { certPem: cert.toString("pem"), keyPem: await keyPem(mod, keys.privateKey), notBefore, notAfter };
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

/** The validity window of a PEM certificate (the first one of a chain). */
export function certificateValidity(certPem: string): { notBefore: Date; notAfter: Date } {
  const cert = new NodeX509(certPem);
  return { notBefore: new Date(cert.validFrom), notAfter: new Date(cert.validTo) };
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
