/**
 * Test-only: a throwaway CA and a server certificate it signs, for local HTTPS webhook servers.
 * Not part of the package API (imported by tests beside the code only).
 */
import { createCertificateAuthority } from "../../tls/certificates.js";

/** A CA and a server certificate/key signed by it, in PEM, plus the CA as a webhook `caBundle`. */
export interface TestPki {
  caPem: string;
  /** base64 of `caPem`, as `clientConfig.caBundle` holds it. */
  caBundle: string;
  certPem: string;
  keyPem: string;
}

/** Creates a CA (`CN=<caName>`) and a server certificate for the given DNS names and IP addresses. */
export async function createTestPki(
  names: { dns?: string[]; ips?: string[] },
  caName = "kyverno-ts test CA",
): Promise<TestPki> {
  const ca = await createCertificateAuthority({ days: 1, commonName: caName });
  const hosts = [...(names.dns ?? []), ...(names.ips ?? [])];
  const serving = await ca.issue(hosts, { commonName: hosts[0] ?? "webhook" });
  return {
    caPem: ca.caCertPem,
    caBundle: Buffer.from(ca.caCertPem).toString("base64"),
    certPem: serving.certPem,
    keyPem: serving.keyPem,
  };
}
