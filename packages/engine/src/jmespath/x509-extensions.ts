/**
 * The X.509 extensions Go's crypto/x509 understands, decoded into the fields it fills
 * (KeyUsage, BasicConstraints, SANs, name constraints, …); see x509.ts.
 */
import type { JsonValue } from "@kyverno-ts/api";
import { children, type Element, integerValue, oidArcs, oidString, readElement, TAG } from "./der.js";

type Json = { [key: string]: JsonValue };

const b64 = (buf: Buffer): string => buf.toString("base64");
const nullIfEmpty = <T extends JsonValue>(list: T[]): T[] | null => (list.length === 0 ? null : list);
const at = (list: Element[], index: number): Element => {
  const element = list[index];
  if (element === undefined) throw new Error("x509: malformed structure");
  return element;
};

/** The content bytes of a BIT STRING after the unused-bits byte. */
export function bitStringBytes(element: Element): Buffer {
  return element.content.subarray(1);
}

const EXT_KEY_USAGES: Record<string, number> = {
  "2.5.29.37.0": 0,
  "1.3.6.1.5.5.7.3.1": 1,
  "1.3.6.1.5.5.7.3.2": 2,
  "1.3.6.1.5.5.7.3.3": 3,
  "1.3.6.1.5.5.7.3.4": 4,
  "1.3.6.1.5.5.7.3.5": 5,
  "1.3.6.1.5.5.7.3.6": 6,
  "1.3.6.1.5.5.7.3.7": 7,
  "1.3.6.1.5.5.7.3.8": 8,
  "1.3.6.1.5.5.7.3.9": 9,
  "1.3.6.1.4.1.311.10.3.3": 10,
  "2.16.840.1.113730.4.1": 11,
  "1.3.6.1.4.1.311.2.1.22": 12,
  "1.3.6.1.4.1.311.61.1.1": 13,
};
function ipString(bytes: Buffer): string {
  if (bytes.length === 4) return [...bytes].join(".");
  const groups: string[] = [];
  for (let i = 0; i + 1 < bytes.length; i += 2) groups.push(bytes.readUInt16BE(i).toString(16));
  return groups.join(":").replace(/(^|:)0(:0)+(:|$)/, "::");
}

function urlJson(text: string): JsonValue {
  try {
    const url = new URL(text);
    return {
      ForceQuery: false,
      Fragment: url.hash.replace(/^#/, ""),
      Host: url.host,
      OmitHost: false,
      Opaque: "",
      Path: url.pathname,
      RawFragment: "",
      RawPath: "",
      RawQuery: url.search.replace(/^\?/, ""),
      Scheme: url.protocol.replace(/:$/, ""),
      User: null,
    };
  } catch {
    return { Opaque: text };
  }
}

interface Names {
  dns: string[];
  email: string[];
  ip: string[];
  uri: JsonValue[];
}

function generalNames(element: Element): Names {
  const out: Names = { dns: [], email: [], ip: [], uri: [] };
  for (const name of children(element)) {
    const text = name.content.toString("utf8");
    if (name.tag === 0x81) out.email.push(text);
    else if (name.tag === 0x82) out.dns.push(text);
    else if (name.tag === 0x86) out.uri.push(urlJson(text));
    else if (name.tag === 0x87) out.ip.push(ipString(name.content));
  }
  return out;
}

/** Fields Go derives from the extensions it understands. */
export function decodeExtensions(list: Element[] | undefined): Json {
  const out: Json = {
    AuthorityKeyId: null,
    BasicConstraintsValid: false,
    CRLDistributionPoints: null,
    DNSNames: null,
    EmailAddresses: null,
    ExcludedDNSDomains: null,
    ExcludedEmailAddresses: null,
    ExcludedIPRanges: null,
    ExcludedURIDomains: null,
    ExtKeyUsage: null,
    Extensions: null,
    IPAddresses: null,
    IsCA: false,
    IssuingCertificateURL: null,
    KeyUsage: 0,
    MaxPathLen: 0,
    MaxPathLenZero: false,
    OCSPServer: null,
    PermittedDNSDomains: null,
    PermittedDNSDomainsCritical: false,
    PermittedEmailAddresses: null,
    PermittedIPRanges: null,
    PermittedURIDomains: null,
    PolicyIdentifiers: null,
    SubjectKeyId: null,
    URIs: null,
    UnhandledCriticalExtensions: null,
    UnknownExtKeyUsage: null,
  };
  const extensions: JsonValue[] = [];
  const unhandled: JsonValue[] = [];
  for (const ext of list ?? []) {
    const parts = children(ext);
    const oid = at(parts, 0);
    const critical = parts.length === 3 && at(parts, 1).content[0] !== 0;
    const value = at(parts, parts.length - 1).content;
    extensions.push({ Critical: critical, Id: oidArcs(oid), Value: b64(value) });
    const inner = () => readElement(value);
    switch (oidString(oid)) {
      case "2.5.29.15": {
        const bits = bitStringBytes(inner());
        let usage = 0;
        for (let i = 0; i < 9; i++) if (((bits[i >> 3] ?? 0) >> (7 - (i & 7))) & 1) usage |= 1 << i;
        out.KeyUsage = usage;
        break;
      }
      case "2.5.29.19": {
        const fields = children(inner());
        out.BasicConstraintsValid = true;
        out.IsCA = fields.some((f) => f.tag === TAG.boolean && f.content[0] !== 0);
        const pathLen = fields.find((f) => f.tag === TAG.integer);
        out.MaxPathLen = pathLen === undefined ? -1 : Number(integerValue(pathLen));
        out.MaxPathLenZero = out.MaxPathLen === 0;
        break;
      }
      case "2.5.29.14":
        out.SubjectKeyId = b64(inner().content);
        break;
      case "2.5.29.35": {
        const keyId = children(inner()).find((f) => f.tag === 0x80);
        if (keyId !== undefined) out.AuthorityKeyId = b64(keyId.content);
        break;
      }
      case "2.5.29.17": {
        const names = generalNames(inner());
        out.DNSNames = nullIfEmpty(names.dns);
        out.EmailAddresses = nullIfEmpty(names.email);
        out.IPAddresses = nullIfEmpty(names.ip);
        out.URIs = nullIfEmpty(names.uri);
        break;
      }
      case "2.5.29.37": {
        const known: number[] = [];
        const unknown: JsonValue[] = [];
        for (const usage of children(inner())) {
          const code = EXT_KEY_USAGES[oidString(usage)];
          if (code === undefined) unknown.push(oidArcs(usage));
          else known.push(code);
        }
        out.ExtKeyUsage = nullIfEmpty(known);
        out.UnknownExtKeyUsage = nullIfEmpty(unknown);
        break;
      }
      case "2.5.29.31": {
        const urls: string[] = [];
        for (const point of children(inner())) {
          const dpName = children(point).find((f) => f.tag === 0xa0);
          const fullName = dpName === undefined ? undefined : children(dpName).find((f) => f.tag === 0xa0);
          for (const name of fullName === undefined ? [] : children(fullName)) {
            if (name.tag === 0x86) urls.push(name.content.toString("utf8"));
          }
        }
        out.CRLDistributionPoints = nullIfEmpty(urls);
        break;
      }
      case "1.3.6.1.5.5.7.1.1": {
        const ocsp: string[] = [];
        const issuers: string[] = [];
        for (const access of children(inner())) {
          const [method, location] = children(access);
          if (method === undefined || location?.tag !== 0x86) continue;
          const method_ = oidString(method);
          if (method_ === "1.3.6.1.5.5.7.48.1") ocsp.push(location.content.toString("utf8"));
          if (method_ === "1.3.6.1.5.5.7.48.2") issuers.push(location.content.toString("utf8"));
        }
        out.OCSPServer = nullIfEmpty(ocsp);
        out.IssuingCertificateURL = nullIfEmpty(issuers);
        break;
      }
      case "2.5.29.32":
        out.PolicyIdentifiers = nullIfEmpty(children(inner()).map((p) => oidArcs(at(children(p), 0))));
        break;
      case "2.5.29.30": {
        out.PermittedDNSDomainsCritical = critical;
        for (const subtrees of children(inner())) {
          const prefix = subtrees.tag === 0xa0 ? "Permitted" : "Excluded";
          const dns: string[] = [];
          const email: string[] = [];
          const uri: string[] = [];
          const ip: JsonValue[] = [];
          for (const subtree of children(subtrees)) {
            const base = at(children(subtree), 0);
            const text = base.content.toString("utf8");
            if (base.tag === 0x82) dns.push(text);
            else if (base.tag === 0x81) email.push(text);
            else if (base.tag === 0x86) uri.push(text);
            else if (base.tag === 0x87) {
              const half = base.content.length / 2;
              ip.push({
                IP: ipString(base.content.subarray(0, half)),
                Mask: b64(base.content.subarray(half)),
              });
            }
          }
          out[`${prefix}DNSDomains`] = nullIfEmpty(dns);
          out[`${prefix}EmailAddresses`] = nullIfEmpty(email);
          out[`${prefix}URIDomains`] = nullIfEmpty(uri);
          out[`${prefix}IPRanges`] = nullIfEmpty(ip);
        }
        break;
      }
      default:
        if (critical) unhandled.push(oidArcs(oid));
    }
  }
  out.Extensions = nullIfEmpty(extensions);
  out.UnhandledCriticalExtensions = nullIfEmpty(unhandled);
  return out;
}
