/**
 * A minimal DER reader: enough ASN.1 to walk X.509 certificates and PKCS#10 requests.
 */

/** One TLV element: its tag byte, the full encoding and the content bytes. */
export interface Element {
  readonly tag: number;
  readonly raw: Buffer;
  readonly content: Buffer;
}

/** Universal tag bytes used by the X.509 walkers. */
export const TAG = {
  boolean: 0x01,
  integer: 0x02,
  bitString: 0x03,
  octetString: 0x04,
  oid: 0x06,
  sequence: 0x30,
  set: 0x31,
} as const;

/** Reads the element starting at `offset`; throws on truncated or indefinite-length input. */
export function readElement(buf: Buffer, offset = 0): Element {
  const tag = buf[offset];
  let lengthByte = buf[offset + 1];
  if (tag === undefined || lengthByte === undefined) throw new Error("x509: truncated DER");
  if ((tag & 0x1f) === 0x1f) throw new Error("x509: high-tag-number form is not supported");
  let header = 2;
  let length = lengthByte;
  if (lengthByte & 0x80) {
    const count = lengthByte & 0x7f;
    if (count === 0 || count > 4) throw new Error("x509: unsupported DER length");
    length = 0;
    for (let i = 0; i < count; i++) {
      lengthByte = buf[offset + 2 + i];
      if (lengthByte === undefined) throw new Error("x509: truncated DER");
      length = length * 256 + lengthByte;
    }
    header += count;
  }
  const end = offset + header + length;
  if (end > buf.length) throw new Error("x509: truncated DER");
  return { tag, raw: buf.subarray(offset, end), content: buf.subarray(offset + header, end) };
}

/** The child elements of a constructed element. */
export function children(element: Element): Element[] {
  const out: Element[] = [];
  let offset = 0;
  while (offset < element.content.length) {
    const child = readElement(element.content, offset);
    out.push(child);
    offset += child.raw.length;
  }
  return out;
}

/** Decodes an OBJECT IDENTIFIER into its arcs. */
export function oidArcs(element: Element): number[] {
  const bytes = element.content;
  const arcs: number[] = [];
  let value = 0;
  for (const byte of bytes) {
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) {
      if (arcs.length === 0) {
        const first = value < 80 ? Math.floor(value / 40) : 2;
        arcs.push(first, value - first * 40);
      } else arcs.push(value);
      value = 0;
    }
  }
  return arcs;
}

/** Dotted form of an OID element. */
export function oidString(element: Element): string {
  return oidArcs(element).join(".");
}

/** A two's-complement INTEGER as a bigint. */
export function integerValue(element: Element): bigint {
  const hex = element.content.toString("hex");
  if (hex === "") return 0n;
  let value = BigInt(`0x${hex}`);
  if (((element.content[0] ?? 0) & 0x80) !== 0) value -= 1n << BigInt(element.content.length * 8);
  return value;
}

/** Decodes the string types a Name or GeneralName may use. */
export function stringValue(element: Element): string {
  switch (element.tag) {
    case 0x1e: {
      // BMPString: UTF-16BE
      const swapped = Buffer.from(element.content);
      swapped.swap16();
      return swapped.toString("utf16le");
    }
    case 0x14:
      return element.content.toString("latin1");
    default:
      return element.content.toString("utf8");
  }
}

/** UTCTime / GeneralizedTime as RFC 3339 (UTC). */
export function timeValue(element: Element): string {
  const s = element.content.toString("ascii");
  const m = (
    element.tag === 0x17
      ? /^(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)Z$/
      : /^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)Z$/
  ).exec(s);
  if (m === null) throw new Error(`x509: malformed time ${s}`);
  let year = m[1] ?? "";
  if (element.tag === 0x17) year = String(Number(year) >= 50 ? 1900 + Number(year) : 2000 + Number(year));
  return `${year}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`;
}

/** Parses PEM into its first block's type and DER bytes (Go's pem.Decode). Linear: no regex over the input. */
export function decodePem(text: string): { type: string; der: Buffer } | undefined {
  const begin = text.indexOf("-----BEGIN ");
  if (begin < 0) return undefined;
  const typeStart = begin + "-----BEGIN ".length;
  const typeEnd = text.indexOf("-----", typeStart);
  if (typeEnd < 0) return undefined;
  const type = text.slice(typeStart, typeEnd);
  if (/[\r\n]/.test(type)) return undefined;
  const end = text.indexOf(`-----END ${type}-----`, typeEnd + 5);
  if (end < 0) return undefined;
  const lines = text
    .slice(typeEnd + 5, end)
    .split(/\r?\n/)
    .filter((line) => !line.includes(":"));
  const body = lines.join("").replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body)) return undefined;
  return { type, der: Buffer.from(body, "base64") };
}
