/**
 * The one certificate authority code of the repository: self-signed CA certificates and the serving
 * (and client) certificates they sign, ECDSA P-256 with WebCrypto and @peculiar/x509 — what the
 * admission controller's webhook certificates (upstream's CA and serving-certificate Secrets) and the
 * sandbox API server's HTTPS endpoint are made of. @peculiar/x509 is loaded on first use, so a process
 * that never issues a certificate never loads it.
 */
import { createPrivateKey, X509Certificate as NodeX509, webcrypto } from "node:crypto";
import { isIP } from "node:net";

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;
type X509Module = typeof import("@peculiar/x509");

const DAY_MS = 24 * 60 * 60 * 1000;
const KEY_ALGORITHM: webcrypto.EcKeyGenParams = { name: "ECDSA", namedCurve: "P-256" };
const SIGNING: webcrypto.EcdsaParams = { name: "ECDSA", hash: "SHA-256" };
/** Default allowance for clock skew between the issuer and whoever checks the certificate. */
const DEFAULT_BACKDATE_MS = 5 * 60 * 1000;

/** A PEM certificate, its PEM (PKCS#8) private key and its validity window. */
export interface CertificatePair {
  certPem: string;
  keyPem: string;
  notBefore: Date;
  notAfter: Date;
}

/** Options shared by {@link generateCaCertificate} and {@link issueCertificate}. */
export interface CertificateOptions {
  /** The time of issue, in epoch milliseconds (from the caller's clock). */
  readonly now: number;
  /** Days from `now` until the certificate expires. */
  readonly validityDays: number;
  /** The subject's common name. */
  readonly commonName?: string;
  /** How far before `now` the certificate becomes valid (default 5 minutes). */
  readonly backdateMs?: number;
}

async function x509(): Promise<X509Module> {
  await import("reflect-metadata");
  return import("@peculiar/x509");
}

async function keyPem(mod: X509Module, key: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey("pkcs8", key);
  return mod.PemConverter.encode(der, "PRIVATE KEY");
}

async function newKeys(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(KEY_ALGORITHM, true, ["sign", "verify"])) as CryptoKeyPair;
}

/** Creates a self-signed CA certificate (key usages certSign, cRLSign) and its key. */
export async function generateCaCertificate(options: CertificateOptions): Promise<CertificatePair> {
  const mod = await x509();
  const keys = await newKeys();
  const notBefore = new Date(options.now - (options.backdateMs ?? DEFAULT_BACKDATE_MS));
  const notAfter = new Date(options.now + options.validityDays * DAY_MS);
  const cert = await mod.X509CertificateGenerator.createSelfSigned(
    {
      name: `CN=${options.commonName ?? "kyverno-ts-ca"}`,
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

/** Options of {@link issueCertificate}. */
export interface IssueOptions extends CertificateOptions {
  /** The signing CA (possibly read back from a Secret; EC or RSA key). */
  readonly ca: Pick<CertificatePair, "certPem" | "keyPem">;
  /** DNS names and IP addresses (subject alternative names); the first is the default common name. */
  readonly hosts: readonly string[];
  /** Also valid for client authentication (extended key usage clientAuth). */
  readonly clientAuth?: boolean;
}

/** Issues a serving certificate for `hosts`, signed by `ca`; it never outlives its CA. */
export async function issueCertificate(options: IssueOptions): Promise<CertificatePair> {
  const mod = await x509();
  const caCert = new mod.X509Certificate(options.ca.certPem);
  const issuer = signingKey(options.ca.keyPem);
  const keys = await newKeys();
  const notBefore = new Date(options.now - (options.backdateMs ?? DEFAULT_BACKDATE_MS));
  const notAfter = new Date(Math.min(options.now + options.validityDays * DAY_MS, caCert.notAfter.getTime()));
  const usages = [mod.ExtendedKeyUsage.serverAuth];
  if (options.clientAuth === true) usages.push(mod.ExtendedKeyUsage.clientAuth);
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
        new mod.ExtendedKeyUsageExtension(usages, false),
        new mod.SubjectAlternativeNameExtension(names, false),
        await mod.AuthorityKeyIdentifierExtension.create(caCert.publicKey, false, webcrypto),
      ],
    },
    webcrypto,
  );
  return { certPem: cert.toString("pem"), keyPem: await keyPem(mod, keys.privateKey), notBefore, notAfter };
}

/** The validity window of a PEM certificate (the first one of a chain). */
export function certificateValidity(certPem: string): { notBefore: Date; notAfter: Date } {
  const cert = new NodeX509(certPem);
  return { notBefore: new Date(cert.validFrom), notAfter: new Date(cert.validTo) };
}
