/**
 * Test-only: a throwaway CA and a server certificate it signs, for local HTTPS webhook servers.
 * Not part of the package API (imported by tests beside the code only).
 */
import "reflect-metadata";
import { webcrypto } from "node:crypto";
import {
  AuthorityKeyIdentifierExtension,
  BasicConstraintsExtension,
  ExtendedKeyUsage,
  ExtendedKeyUsageExtension,
  type JsonGeneralName,
  KeyUsageFlags,
  KeyUsagesExtension,
  SubjectAlternativeNameExtension,
  SubjectKeyIdentifierExtension,
  X509CertificateGenerator,
} from "@peculiar/x509";

/** A CA and a server certificate/key signed by it, in PEM, plus the CA as a webhook `caBundle`. */
export interface TestPki {
  caPem: string;
  /** base64 of `caPem`, as `clientConfig.caBundle` holds it. */
  caBundle: string;
  certPem: string;
  keyPem: string;
}

const ALG = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const crypto = webcrypto;

function pem(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der)
    .toString("base64")
    .replace(/(.{64})/g, "$1\n");
  return `-----BEGIN ${label}-----\n${b64.trimEnd()}\n-----END ${label}-----\n`;
}

/** Creates a CA (`CN=<caName>`) and a server certificate for the given DNS names and IP addresses. */
export async function createTestPki(
  names: { dns?: string[]; ips?: string[] },
  caName = "kyverno-ts test CA",
): Promise<TestPki> {
  const notBefore = new Date(Date.now() - 3_600_000);
  const notAfter = new Date(Date.now() + 86_400_000);
  const caKeys = await crypto.subtle.generateKey(ALG, true, ["sign", "verify"]);
  const ca = await X509CertificateGenerator.createSelfSigned(
    {
      name: `CN=${caName}`,
      keys: caKeys,
      notBefore,
      notAfter,
      signingAlgorithm: ALG,
      extensions: [
        new BasicConstraintsExtension(true, undefined, true),
        new KeyUsagesExtension(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign, true),
        await SubjectKeyIdentifierExtension.create(caKeys.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  const keys = await crypto.subtle.generateKey(ALG, true, ["sign", "verify"]);
  const sans: JsonGeneralName[] = [
    ...(names.dns ?? []).map((value): JsonGeneralName => ({ type: "dns", value })),
    ...(names.ips ?? []).map((value): JsonGeneralName => ({ type: "ip", value })),
  ];
  const cert = await X509CertificateGenerator.create(
    {
      subject: `CN=${names.dns?.[0] ?? names.ips?.[0] ?? "webhook"}`,
      issuer: ca.subject,
      publicKey: keys.publicKey,
      signingKey: caKeys.privateKey,
      notBefore,
      notAfter,
      signingAlgorithm: ALG,
      extensions: [
        new BasicConstraintsExtension(false, undefined, true),
        new KeyUsagesExtension(KeyUsageFlags.digitalSignature | KeyUsageFlags.keyEncipherment, true),
        new ExtendedKeyUsageExtension([ExtendedKeyUsage.serverAuth]),
        new SubjectAlternativeNameExtension(sans),
        await AuthorityKeyIdentifierExtension.create(ca, false, crypto),
      ],
    },
    crypto,
  );
  const caPem = ca.toString("pem");
  return {
    caPem,
    caBundle: Buffer.from(caPem).toString("base64"),
    certPem: cert.toString("pem"),
    keyPem: pem("PRIVATE KEY", await crypto.subtle.exportKey("pkcs8", keys.privateKey)),
  };
}
