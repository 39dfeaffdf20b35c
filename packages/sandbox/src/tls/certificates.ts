/**
 * A throw-away certificate authority and the certificates it issues, for the sandbox's HTTPS endpoint,
 * its client certificates and webhook servers in tests. The certificates are made by `@kyverno-ts/k8s`
 * (the repository's one certificate authority code); this module keeps a CA with its key so it can
 * issue again, and takes up an existing one across restarts.
 */
import { generateCaCertificate, issueCertificate } from "@kyverno-ts/k8s";

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

/** A CA certificate and its key as PEM (what `caCertPem` / `caKeyPem` hold). */
export interface CaPem {
  certPem: string;
  keyPem: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Creates a new CA valid for `days` (default 365), or takes up an existing one (`existing`, as a
 * previous CA's `caCertPem` / `caKeyPem`) so clients that trust it keep working. Certificates are
 * valid from a day back (test machines' clocks disagree) until the CA expires.
 */
export async function createCertificateAuthority(
  options: { days?: number; commonName?: string; existing?: CaPem } = {},
): Promise<CertificateAuthority> {
  const days = options.days ?? 365;
  const ca =
    options.existing ??
    (await generateCaCertificate({
      now: Date.now(),
      validityDays: days,
      commonName: options.commonName ?? "kyverno-ts-sandbox-ca",
      backdateMs: DAY_MS,
    }));
  return {
    caCertPem: ca.certPem,
    caKeyPem: ca.keyPem,
    async issue(hosts, issueOptions = {}) {
      const leaf = await issueCertificate({
        ca,
        hosts,
        now: Date.now(),
        validityDays: days,
        backdateMs: DAY_MS,
        ...(issueOptions.commonName !== undefined ? { commonName: issueOptions.commonName } : {}),
        ...(issueOptions.clientAuth === true ? { clientAuth: true } : {}),
      });
      return { certPem: leaf.certPem, keyPem: leaf.keyPem };
    },
  };
}
