import { readFileSync } from "node:fs";
import type { JsonValue } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { createJmespath } from "./index.js";

const jp = createJmespath({ clock: { now: () => new Date("2023-01-12T12:00:00Z").getTime() } });
const fixture = (name: string) => readFileSync(new URL(`./testdata/${name}`, import.meta.url), "utf8");
function value(expression: string, data: JsonValue = null): JsonValue {
  const result = jp.search(expression, data);
  if (!result.ok) throw new Error(result.error);
  return result.value;
}

describe("x509_decode", () => {
  it("decodes the documented certificate into exactly the documented JSON", () => {
    const expected = JSON.parse(fixture("kyverno-svc.json")) as JsonValue;
    expect(value("x509_decode(@)", fixture("kyverno-svc.pem"))).toEqual(expected);
  });

  it("works after base64_decode, as in the docs example", () => {
    const caBundle = Buffer.from(fixture("kyverno-svc.pem")).toString("base64");
    const data = { webhooks: [{ clientConfig: { caBundle } }] };
    expect(
      value("base64_decode(webhooks[0].clientConfig.caBundle) | x509_decode(@).Subject.CommonName", data),
    ).toBe("*.kyverno.svc");
    expect(
      value(
        "x509_decode(base64_decode(webhooks[0].clientConfig.caBundle)).time_since('', NotBefore, NotAfter)",
        data,
      ),
    ).toBe("8761h0m0s");
  });

  it("decodes SANs, extended key usage and EC keys", () => {
    const cert = value("x509_decode(@)", fixture("ec-leaf.pem")) as Record<string, JsonValue>;
    expect(cert.DNSNames).toEqual(["a.example.com"]);
    expect(cert.ExtKeyUsage).toEqual([1, 2]);
    expect(cert.SerialNumber).toBe(4660);
    expect(cert.PublicKeyAlgorithm).toBe(3);
    expect(cert.SignatureAlgorithm).toBe(10);
    expect(cert.IsCA).toBe(false);
    expect(cert.BasicConstraintsValid).toBe(true);
    expect(cert.URIs).toEqual([
      expect.objectContaining({ Scheme: "spiffe", Host: "cluster", Path: "/ns/x" }),
    ]);
    expect(cert.Subject).toMatchObject({
      CommonName: "leaf",
      Organization: ["Acme"],
      OrganizationalUnit: ["Platform"],
    });
    expect(cert.PublicKey).toMatchObject({ Curve: { Name: "P-256", BitSize: 256 } });
  });

  it("decodes certificate signing requests", () => {
    const csr = value("x509_decode(@)", fixture("csr.pem")) as Record<string, JsonValue>;
    expect(csr.Subject).toMatchObject({
      CommonName: "app.example.com",
      Country: ["US"],
      Organization: ["Acme"],
    });
    expect(csr.DNSNames).toEqual(["app.example.com"]);
    expect(csr.IPAddresses).toEqual(["10.0.0.1"]);
    expect(csr.EmailAddresses).toEqual(["ops@example.com"]);
    expect(csr.Version).toBe(0);
    expect(csr.RawTBSCertificateRequest).toEqual(expect.any(String));
  });

  it("rejects input that is not a PEM certificate", () => {
    expect(jp.search("x509_decode('hello')", null)).toEqual({
      ok: false,
      error: "JMESPath function 'x509_decode': invalid certificate",
    });
    const broken = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
    expect(jp.search("x509_decode(@)", broken)).toMatchObject({
      ok: false,
      error: expect.stringContaining("x509_decode"),
    });
    const key = "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n";
    expect(jp.search("x509_decode(@)", key)).toMatchObject({
      ok: false,
      error: expect.stringContaining("invalid certificate"),
    });
    expect(jp.search("x509_decode(@)", { a: 1 })).toMatchObject({ ok: false });
  });
});
