import { describe, expect, it } from "vitest";
import {
  generateCertificateAuthority,
  generateCertificates,
  issueServingCertificate,
} from "./certificates.js";
import {
  caBundleOf,
  caProblem,
  pairProblem,
  readTlsSecret,
  servingHosts,
  splitPem,
  tlsSecret,
  tlsSecretNames,
  validCertificates,
} from "./tls-secrets.js";

const DAY = 24 * 60 * 60 * 1000;
const start = new Date("2026-01-01T00:00:00Z");
const clock = { now: () => start.getTime() };
const at = (days: number) => new Date(start.getTime() + days * DAY);
const hosts = servingHosts("kyverno-svc", "kyverno", ["127.0.0.1"]);

describe("TLS Secrets", () => {
  it("uses upstream's names and host names, and round-trips through a kubernetes.io/tls Secret", () => {
    expect(tlsSecretNames("kyverno-svc", "kyverno")).toEqual({
      ca: "kyverno-svc.kyverno.svc.kyverno-tls-ca",
      pair: "kyverno-svc.kyverno.svc.kyverno-tls-pair",
    });
    expect(hosts).toEqual(["kyverno-svc", "kyverno-svc.kyverno", "kyverno-svc.kyverno.svc", "127.0.0.1"]);
    const secret = tlsSecret("s", "kyverno", { certPem: "CERT", keyPem: "KEY" }, "42");
    expect(secret.type).toBe("kubernetes.io/tls");
    expect(secret.metadata?.resourceVersion).toBe("42");
    expect(readTlsSecret(secret)).toEqual({ certPem: "CERT", keyPem: "KEY" });
    expect(readTlsSecret({ data: { "tls.crt": "" } })).toBeUndefined();
  });

  it("renews the CA 15 days before its 365 days end, and when it is unusable", async () => {
    const ca = await generateCertificateAuthority({ clock });
    expect(caProblem(ca, at(1))).toBeUndefined();
    expect(caProblem(ca, at(349))).toBeUndefined();
    expect(caProblem(ca, at(351))).toMatch(/^the CA expires on/);
    expect(caProblem(undefined, at(1))).toBe("no CA yet");
    const other = await generateCertificateAuthority({ clock });
    expect(caProblem({ certPem: ca.certPem, keyPem: other.keyPem }, at(1))).toBe(
      "the CA key does not match its certificate",
    );
  });

  it("reissues the serving pair 15 days before its 150 days end, for a new CA or missing host names", async () => {
    const { ca, serving } = await generateCertificates({ hosts, clock });
    expect(pairProblem(serving, ca.certPem, hosts, at(1))).toBeUndefined();
    expect(pairProblem(serving, ca.certPem, hosts, at(136))).toMatch(/^the serving certificate expires on/);
    expect(pairProblem(serving, ca.certPem, [...hosts, "10.0.0.1"], at(1))).toBe(
      "the serving certificate does not name 10.0.0.1",
    );
    const newCa = await generateCertificateAuthority({ clock });
    expect(pairProblem(serving, `${newCa.certPem}\n${ca.certPem}`, hosts, at(1))).toBe(
      "the serving certificate was not signed by the current CA",
    );
    const reissued = await issueServingCertificate({ ca: newCa, hosts, clock });
    expect(pairProblem(reissued, `${newCa.certPem}\n${ca.certPem}`, hosts, at(1))).toBeUndefined();
  });

  it("bundles every CA still valid", async () => {
    const old = await generateCertificateAuthority({ clock, validityDays: 10 });
    const current = await generateCertificateAuthority({ clock });
    const bundle = `${current.certPem}\n${old.certPem}`;
    expect(splitPem(bundle)).toHaveLength(2);
    expect(validCertificates(bundle, at(5))).toHaveLength(2);
    expect(validCertificates(bundle, at(11))).toHaveLength(1);
    const decoded = Buffer.from(caBundleOf(bundle, at(11)) ?? "", "base64").toString();
    expect(decoded.trim()).toBe(current.certPem.trim());
    expect(caBundleOf(old.certPem, at(11))).toBeUndefined();
  });
});
