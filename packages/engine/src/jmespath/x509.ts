/**
 * `x509_decode`: a PEM certificate or CSR as the JSON that Go's `x509.Certificate` /
 * `x509.CertificateRequest` marshal to (keys sorted, byte fields base64, OIDs as integer arrays),
 * with an RSA public key as `{N: "<decimal>", E: <number>}` as Kyverno prints it.
 * node:crypto validates certificates; the fields are read from the DER with a small ASN.1 walker.
 * Deviations: ECDSA keys are `{Curve: {Name, BitSize}, X, Y}` with decimal strings (Go would emit
 * lossy floats), CSR `Attributes` is null.
 */
import { X509Certificate } from "node:crypto";
import type { JsonValue } from "@kyverno-ts/api";
import { arg, type FunctionDef } from "./context.js";
import {
  children,
  decodePem,
  type Element,
  integerValue,
  oidArcs,
  oidString,
  readElement,
  stringValue,
  TAG,
  timeValue,
} from "./der.js";
import { functionError } from "./errors.js";
import { bitStringBytes, decodeExtensions } from "./x509-extensions.js";

type Json = { [key: string]: JsonValue };

const SIGNATURE_ALGORITHMS: Record<string, number> = {
  "1.2.840.113549.1.1.2": 1,
  "1.2.840.113549.1.1.4": 2,
  "1.2.840.113549.1.1.5": 3,
  "1.2.840.113549.1.1.11": 4,
  "1.2.840.113549.1.1.12": 5,
  "1.2.840.113549.1.1.13": 6,
  "1.2.840.10040.4.3": 7,
  "2.16.840.1.101.3.4.3.2": 8,
  "1.2.840.10045.4.1": 9,
  "1.2.840.10045.4.3.2": 10,
  "1.2.840.10045.4.3.3": 11,
  "1.2.840.10045.4.3.4": 12,
  "1.3.101.112": 16,
};
const PSS_BY_HASH: Record<string, number> = {
  "2.16.840.1.101.3.4.2.1": 13,
  "2.16.840.1.101.3.4.2.2": 14,
  "2.16.840.1.101.3.4.2.3": 15,
};
const PUBLIC_KEY_ALGORITHMS: Record<string, number> = {
  "1.2.840.113549.1.1.1": 1,
  "1.2.840.10040.4.1": 2,
  "1.2.840.10045.2.1": 3,
  "1.3.101.112": 4,
};
const CURVES: Record<string, [string, number]> = {
  "1.2.840.10045.3.1.1": ["P-224", 224],
  "1.2.840.10045.3.1.7": ["P-256", 256],
  "1.3.132.0.34": ["P-384", 384],
  "1.3.132.0.35": ["P-521", 521],
};
const NAME_FIELDS: Record<string, string> = {
  "2.5.4.6": "Country",
  "2.5.4.10": "Organization",
  "2.5.4.11": "OrganizationalUnit",
  "2.5.4.7": "Locality",
  "2.5.4.8": "Province",
  "2.5.4.9": "StreetAddress",
  "2.5.4.17": "PostalCode",
};

const b64 = (buf: Buffer): string => buf.toString("base64");
const nullIfEmpty = <T extends JsonValue>(list: T[]): T[] | null => (list.length === 0 ? null : list);
const at = (list: Element[], index: number): Element => {
  const element = list[index];
  if (element === undefined) throw new Error("x509: malformed structure");
  return element;
};

function sortKeys(object: Json): Json {
  return Object.fromEntries(Object.entries(object).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** pkix.Name filled from an RDNSequence. */
function decodeName(name: Element): Json {
  const lists: Record<string, string[]> = {};
  const names: JsonValue[] = [];
  let commonName = "";
  let serialNumber = "";
  for (const rdn of children(name)) {
    for (const atv of children(rdn)) {
      const [type, value] = children(atv);
      if (type === undefined || value === undefined) continue;
      const oid = oidString(type);
      const text = stringValue(value);
      names.push({ Type: oidArcs(type), Value: text });
      if (oid === "2.5.4.3") commonName = text;
      else if (oid === "2.5.4.5") serialNumber = text;
      else {
        const field = NAME_FIELDS[oid];
        if (field !== undefined) lists[field] = [...(lists[field] ?? []), text];
      }
    }
  }
  const list = (field: string) => nullIfEmpty(lists[field] ?? []);
  return sortKeys({
    CommonName: commonName,
    SerialNumber: serialNumber,
    Names: nullIfEmpty(names),
    ExtraNames: null,
    ...Object.fromEntries(Object.values(NAME_FIELDS).map((f) => [f, list(f)])),
  });
}

function signatureAlgorithm(algorithm: Element): number {
  const [oid, params] = children(algorithm);
  if (oid === undefined) return 0;
  const dotted = oidString(oid);
  if (dotted !== "1.2.840.113549.1.1.10") return SIGNATURE_ALGORITHMS[dotted] ?? 0;
  // RSASSA-PSS: the hash is in params [0] AlgorithmIdentifier; SHA-1 default is unsupported by Go.
  const hash = params === undefined ? undefined : children(params).find((e) => e.tag === 0xa0);
  const hashAlg = hash === undefined ? undefined : children(hash)[0];
  const hashOid = hashAlg === undefined ? undefined : children(hashAlg)[0];
  return hashOid === undefined ? 0 : (PSS_BY_HASH[oidString(hashOid)] ?? 0);
}

function publicKey(spki: Element): { algorithm: number; key: JsonValue } {
  const [algorithm, bits] = children(spki);
  if (algorithm === undefined || bits === undefined) throw new Error("x509: malformed public key");
  const [oid, params] = children(algorithm);
  const kind = oid === undefined ? 0 : (PUBLIC_KEY_ALGORITHMS[oidString(oid)] ?? 0);
  const keyBytes = bitStringBytes(bits);
  if (kind === 1) {
    const [n, e] = children(readElement(keyBytes));
    if (n === undefined || e === undefined) throw new Error("x509: malformed RSA public key");
    return { algorithm: kind, key: { E: Number(integerValue(e)), N: integerValue(n).toString() } };
  }
  if (kind === 3 && params !== undefined && params.tag === TAG.oid) {
    const [name, bitSize] = CURVES[oidString(params)] ?? ["", 0];
    const size = (keyBytes.length - 1) / 2;
    const coordinate = (from: number) =>
      BigInt(`0x${keyBytes.subarray(from, from + size).toString("hex") || "0"}`).toString();
    return {
      algorithm: kind,
      key: { Curve: { BitSize: bitSize, Name: name }, X: coordinate(1), Y: coordinate(1 + size) },
    };
  }
  if (kind === 4) return { algorithm: kind, key: b64(keyBytes) };
  return { algorithm: kind, key: null };
}

function decodeCertificate(der: Buffer): Json {
  new X509Certificate(der); // rejects anything OpenSSL cannot parse, as Go's x509.ParseCertificate would
  const cert = readElement(der);
  const [tbs, sigAlg, signature] = children(cert);
  if (tbs === undefined || sigAlg === undefined || signature === undefined)
    throw new Error("x509: malformed certificate");
  const fields = children(tbs);
  const hasVersion = fields[0]?.tag === 0xa0;
  const f = hasVersion ? fields.slice(1) : fields;
  const version = hasVersion ? Number(integerValue(at(children(at(fields, 0)), 0))) + 1 : 1;
  const validity = children(at(f, 3));
  const key = publicKey(at(f, 5));
  const extensions = f.find((e) => e.tag === 0xa3);
  return sortKeys({
    ...decodeExtensions(extensions === undefined ? undefined : children(at(children(extensions), 0))),
    ExtraExtensions: null,
    Issuer: decodeName(at(f, 2)),
    NotAfter: timeValue(at(validity, 1)),
    NotBefore: timeValue(at(validity, 0)),
    PublicKey: key.key,
    PublicKeyAlgorithm: key.algorithm,
    Raw: b64(der),
    RawIssuer: b64(at(f, 2).raw),
    RawSubject: b64(at(f, 4).raw),
    RawSubjectPublicKeyInfo: b64(at(f, 5).raw),
    RawTBSCertificate: b64(tbs.raw),
    SerialNumber: Number(integerValue(at(f, 0))),
    Signature: b64(bitStringBytes(signature)),
    SignatureAlgorithm: signatureAlgorithm(sigAlg),
    Subject: decodeName(at(f, 4)),
    Version: version,
  });
}

function decodeRequest(der: Buffer): Json {
  const csr = readElement(der);
  const [info, sigAlg, signature] = children(csr);
  if (info === undefined || sigAlg === undefined || signature === undefined)
    throw new Error("x509: malformed certificate request");
  const [version, subject, spki, attributes] = children(info);
  if (version === undefined || subject === undefined || spki === undefined)
    throw new Error("x509: malformed certificate request");
  let extensionList: Element[] | undefined;
  for (const attribute of attributes === undefined ? [] : children(attributes)) {
    const [type, values] = children(attribute);
    if (type !== undefined && values !== undefined && oidString(type) === "1.2.840.113549.1.9.14") {
      extensionList = children(at(children(values), 0));
    }
  }
  const ext = decodeExtensions(extensionList);
  const key = publicKey(spki);
  return sortKeys({
    Attributes: null,
    DNSNames: ext.DNSNames ?? null,
    EmailAddresses: ext.EmailAddresses ?? null,
    Extensions: ext.Extensions ?? null,
    ExtraExtensions: null,
    IPAddresses: ext.IPAddresses ?? null,
    PublicKey: key.key,
    PublicKeyAlgorithm: key.algorithm,
    Raw: b64(der),
    RawSubject: b64(subject.raw),
    RawSubjectPublicKeyInfo: b64(spki.raw),
    RawTBSCertificateRequest: b64(info.raw),
    Signature: b64(bitStringBytes(signature)),
    SignatureAlgorithm: signatureAlgorithm(sigAlg),
    Subject: decodeName(subject),
    URIs: ext.URIs ?? null,
    Version: Number(integerValue(version)),
  });
}

/** Decodes a PEM certificate or certificate request into Go's JSON shape. */
export function x509Decode(pem: string): JsonValue {
  const block = decodePem(pem);
  if (block === undefined) throw functionError("x509_decode", "invalid certificate");
  try {
    if (block.type === "CERTIFICATE") return decodeCertificate(block.der);
    if (block.type === "CERTIFICATE REQUEST") return decodeRequest(block.der);
  } catch (thrown) {
    throw functionError("x509_decode", thrown instanceof Error ? thrown.message : String(thrown));
  }
  throw functionError("x509_decode", "invalid certificate");
}

/** x509_decode. */
export const x509Functions: readonly FunctionDef[] = [
  {
    name: "x509_decode",
    args: [arg("string")],
    returns: "object",
    description: "decodes a PEM certificate or CSR into Go's x509 JSON shape",
    call: (a) => x509Decode(typeof a[0] === "string" ? a[0] : ""),
  },
];
