/**
 * A throw-away certificate authority and serving certificates (ECDSA P-256) made with WebCrypto and
 * @peculiar/x509, for the sandbox's HTTPS endpoint and for webhook servers in tests.
 */
import { webcrypto } from "node:crypto";

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

import "reflect-metadata";
import * as x509 from "@peculiar/x509";

/** A PEM certificate and its PEM (PKCS#8) private key. */
export interface CertificateAndKey {
  certPem: string;
  keyPem: string;
}

/** A certificate authority that issues serving certificates. */
export interface CertificateAuthority {
  /** The CA certificate (what clients put in `certificate-authority-data` / `caBundle`). */
  caCertPem: string;
  /** The CA's private key (PKCS#8 PEM), to keep the CA across restarts. */
  caKeyPem: string;
  /** A serving certificate for DNS names and IP addresses, signed by this CA. */
  issue(
    hosts: readonly string[],
    options?: { clientAuth?: boolean; commonName?: string },
  ): Promise<CertificateAndKey>;
}

const ALGORITHM: webcrypto.EcKeyGenParams = { name: "ECDSA", namedCurve: "P-256" };
const SIGNING: webcrypto.EcdsaParams = { name: "ECDSA", hash: "SHA-256" };
const DAY = 24 * 60 * 60 * 1000;

async function keyPair(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"])) as CryptoKeyPair;
}

async function privateKeyPem(key: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey("pkcs8", key);
  return x509.PemConverter.encode(der, "PRIVATE KEY");
}

const IP = /^(\d{1,3}\.){3}\d{1,3}$|:/;

/** A CA certificate and its key as PEM (what `caCertPem` / `caKeyPem` hold). */
export interface CaPem {
  certPem: string;
  keyPem: string;
}

async function restoreCa(existing: CaPem): Promise<{ keys: CryptoKeyPair; ca: x509.X509Certificate }> {
  const ca = new x509.X509Certificate(existing.certPem);
  const privateKey = await webcrypto.subtle.importKey(
    "pkcs8",
    x509.PemConverter.decodeFirst(existing.keyPem),
    ALGORITHM,
    true,
    ["sign"],
  );
  const publicKey = await ca.publicKey.export(ALGORITHM, ["verify"], webcrypto);
  return { keys: { privateKey, publicKey }, ca };
}

/**
 * Creates a new CA valid for `days` (default 365), or takes up an existing one (`existing`, as a
 * previous CA's `caCertPem` / `caKeyPem`) so clients that trust it keep working.
 */
export async function createCertificateAuthority(
  options: { days?: number; commonName?: string; existing?: CaPem } = {},
): Promise<CertificateAuthority> {
  const crypto = webcrypto;
  const notBefore = new Date(Date.now() - DAY);
  const notAfter = new Date(Date.now() + (options.days ?? 365) * DAY);
  const { keys, ca } =
    options.existing === undefined
      ? await newCa(options, notBefore, notAfter)
      : await restoreCa(options.existing);
  return {
    caCertPem: ca.toString("pem"),
    caKeyPem: await privateKeyPem(keys.privateKey),
    async issue(hosts, issueOptions = {}) {
      const leafKeys = await keyPair();
      const usages = [x509.ExtendedKeyUsage.serverAuth];
      if (issueOptions.clientAuth === true) usages.push(x509.ExtendedKeyUsage.clientAuth);
      const cert = await x509.X509CertificateGenerator.create(
        {
          subject: `CN=${issueOptions.commonName ?? hosts[0] ?? "localhost"}`,
          issuer: ca.subject,
          notBefore,
          notAfter: ca.notAfter < notAfter ? ca.notAfter : notAfter,
          publicKey: leafKeys.publicKey,
          signingKey: keys.privateKey,
          signingAlgorithm: SIGNING,
          extensions: [
            new x509.BasicConstraintsExtension(false, undefined, true),
            new x509.KeyUsagesExtension(
              x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
              true,
            ),
            new x509.ExtendedKeyUsageExtension(usages, false),
            new x509.SubjectAlternativeNameExtension(
              hosts.map((h) =>
                IP.test(h) ? { type: "ip" as const, value: h } : { type: "dns" as const, value: h },
              ),
              false,
            ),
            await x509.AuthorityKeyIdentifierExtension.create(keys.publicKey, false, crypto),
          ],
        },
        crypto,
      );
      return { certPem: cert.toString("pem"), keyPem: await privateKeyPem(leafKeys.privateKey) };
    },
  };
}

async function newCa(
  options: { commonName?: string },
  notBefore: Date,
  notAfter: Date,
): Promise<{ keys: CryptoKeyPair; ca: x509.X509Certificate }> {
  const crypto = webcrypto;
  const keys = await keyPair();
  const name = `CN=${options.commonName ?? "kyverno-ts-sandbox-ca"}`;
  const ca = await x509.X509CertificateGenerator.createSelfSigned(
    {
      name,
      notBefore,
      notAfter,
      keys,
      signingAlgorithm: SIGNING,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
          true,
        ),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  return { keys, ca };
}
