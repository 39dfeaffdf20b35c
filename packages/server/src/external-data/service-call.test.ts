import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  generateCertificateAuthority,
  issueServingCertificate,
} from "../controllers/certificates/certificates.js";
import { serviceCall } from "./service-call.js";

describe("apiCall.service", () => {
  let server: Server;
  let url: string;
  let caPem: string;
  const seen: Array<Record<string, string | string[] | undefined>> = [];

  beforeAll(async () => {
    const clock = { now: () => Date.now() };
    const ca = await generateCertificateAuthority({ clock });
    const pair = await issueServingCertificate({ ca, hosts: ["127.0.0.1"], clock });
    caPem = ca.certPem;
    server = createServer({ cert: pair.certPem, key: pair.keyPem }, (req, res) => {
      seen.push(req.headers);
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ team: req.headers["x-team"] ?? null }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/info`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const call = (extra: { caBundle?: string; headers?: Array<{ key: string; value: string }> }) =>
    serviceCall(
      { url, method: "GET", ...extra },
      { maxBytes: 1_000_000, signal: new AbortController().signal },
    );

  it("trusts the entry's caBundle and sends its headers", async () => {
    const result = await call({
      caBundle: caPem,
      headers: [
        { key: "X-Team", value: "payments" },
        { key: "Authorization", value: "Bearer s3cret" },
      ],
    });
    expect(result).toEqual({ ok: true, value: { team: "payments" } });
    expect(seen.at(-1)).toMatchObject({ authorization: "Bearer s3cret", accept: "application/json" });
  });

  it("refuses a certificate the system does not trust without a caBundle, naming the URL but no header", async () => {
    const result = await call({ headers: [{ key: "Authorization", value: "Bearer s3cret" }] });
    expect(result.ok).toBe(false);
    const error = result.ok ? "" : result.error;
    expect(error).toContain(`apiCall ${url}:`);
    expect(error).toMatch(/certificate/i);
    expect(error).not.toContain("s3cret");
  });
});
