import { X509Certificate } from "node:crypto";
import { describe, expect, it } from "vitest";
import { fakeClock } from "../../testing/fixtures.js";
import {
  caBundle,
  certificateValidity,
  generateCertificateAuthority,
  generateCertificates,
  issueServingCertificate,
  needsRenewal,
} from "./certificates.js";

const DAY = 24 * 60 * 60 * 1000;

describe("certificates", () => {
  it("generates a CA (365 days) and a serving certificate (150 days) it signed, for the given hosts", async () => {
    const clock = fakeClock();
    const now = clock.now();
    const { ca, serving } = await generateCertificates({
      hosts: ["kyverno-svc.kyverno.svc", "127.0.0.1"],
      clock,
    });
    const caCert = new X509Certificate(ca.certPem);
    const cert = new X509Certificate(serving.certPem);
    expect(caCert.ca).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.checkIssued(caCert)).toBe(true);
    expect(cert.verify(caCert.publicKey)).toBe(true);
    expect(cert.checkHost("kyverno-svc.kyverno.svc")).toBe("kyverno-svc.kyverno.svc");
    expect(cert.checkIP("127.0.0.1")).toBe("127.0.0.1");
    expect(Math.round((ca.notAfter.getTime() - now) / DAY)).toBe(365);
    expect(Math.round((serving.notAfter.getTime() - now) / DAY)).toBe(150);
    expect(certificateValidity(serving.certPem).notAfter.getTime()).toBe(
      Math.floor(serving.notAfter.getTime() / 1000) * 1000,
    );
    expect(Buffer.from(caBundle(ca.certPem), "base64").toString()).toBe(ca.certPem);
  });

  it("issues a new serving certificate from a CA read back from PEM", async () => {
    const clock = fakeClock();
    const ca = await generateCertificateAuthority({ clock });
    const serving = await issueServingCertificate({
      ca: { certPem: ca.certPem, keyPem: ca.keyPem },
      hosts: ["localhost"],
      clock,
    });
    expect(new X509Certificate(serving.certPem).checkIssued(new X509Certificate(ca.certPem))).toBe(true);
  });

  it("never issues a serving certificate that outlives its CA", async () => {
    const clock = fakeClock();
    const ca = await generateCertificateAuthority({ clock, validityDays: 30 });
    const serving = await issueServingCertificate({ ca, hosts: ["localhost"], clock });
    expect(serving.notAfter.getTime()).toBeLessThanOrEqual(ca.notAfter.getTime());
  });

  it("asks for renewal 15 days before expiry", async () => {
    const clock = fakeClock();
    const { serving } = await generateCertificates({ hosts: ["localhost"], clock });
    const at = (days: number) => new Date(clock.now() + days * DAY);
    expect(needsRenewal(serving.certPem, at(0))).toBe(false);
    expect(needsRenewal(serving.certPem, at(134))).toBe(false);
    expect(needsRenewal(serving.certPem, at(136))).toBe(true);
  });
});
