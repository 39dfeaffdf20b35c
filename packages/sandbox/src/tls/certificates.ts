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

/** Creates a new CA valid for `days` (default 365). */
export async function createCertificateAuthority(
  options: { days?: number; commonName?: string } = {},
): Promise<CertificateAuthority> {
  const crypto = webcrypto;
  const keys = await keyPair();
  const notBefore = new Date(Date.now() - DAY);
  const notAfter = new Date(Date.now() + (options.days ?? 365) * DAY);
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
  return {
    caCertPem: ca.toString("pem"),
    async issue(hosts, issueOptions = {}) {
      const leafKeys = await keyPair();
      const usages = [x509.ExtendedKeyUsage.serverAuth];
      if (issueOptions.clientAuth === true) usages.push(x509.ExtendedKeyUsage.clientAuth);
      const cert = await x509.X509CertificateGenerator.create(
        {
          subject: `CN=${issueOptions.commonName ?? hosts[0] ?? "localhost"}`,
          issuer: ca.subject,
          notBefore,
          notAfter,
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
