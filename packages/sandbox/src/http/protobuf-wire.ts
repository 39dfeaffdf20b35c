/**
 * The protobuf binary wire format, read the way gogo-protobuf's generated `Unmarshal` reads it:
 * tag varints, varints of up to 10 bytes, length-delimited fields bounded by their message, fixed
 * 32/64-bit fields. Any truncation or overflow throws a `WireError` (never reads past the buffer,
 * always advances, so a malformed body cannot hang the decoder).
 */

/** A malformed protobuf body; the message matches Go's where there is an equivalent. */
export class WireError extends Error {
  override readonly name = "WireError";
}

/** One field as found on the wire, before any schema is applied. */
export type WireField =
  | { readonly num: number; readonly wire: "varint"; readonly value: bigint }
  | { readonly num: number; readonly wire: "bytes"; readonly value: Buffer }
  | { readonly num: number; readonly wire: "fixed64" | "fixed32"; readonly value: Buffer };

/** The numeric wire type of a field (as Go's messages print it). */
export function wireTypeOf(f: WireField): number {
  return { varint: 0, fixed64: 1, bytes: 2, fixed32: 5 }[f.wire];
}

/** A read position inside a buffer. */
export interface Cursor {
  i: number;
}

/** Reads an unsigned varint (at most 10 bytes, i.e. 64 bits) and advances the cursor. */
export function readVarint(buf: Buffer, pos: Cursor): bigint {
  let result = 0n;
  for (let shift = 0n; shift < 70n; shift += 7n) {
    const byte = buf[pos.i];
    if (byte === undefined) throw new WireError("unexpected EOF");
    pos.i++;
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return BigInt.asUintN(64, result);
  }
  throw new WireError("proto: integer overflow");
}

function take(buf: Buffer, pos: Cursor, length: number): Buffer {
  if (length > buf.length - pos.i) throw new WireError("unexpected EOF");
  const value = buf.subarray(pos.i, pos.i + length);
  pos.i += length;
  return value;
}

/** Splits a message into its fields, in wire order (repeated fields appear once per element). */
export function readFields(buf: Buffer): WireField[] {
  const out: WireField[] = [];
  const pos: Cursor = { i: 0 };
  while (pos.i < buf.length) {
    const key = readVarint(buf, pos);
    const wire = Number(key & 7n);
    const num = Number(key >> 3n);
    if (num <= 0 || num > 0x1fffffff) throw new WireError(`proto: illegal tag ${num} (wire type ${wire})`);
    switch (wire) {
      case 0:
        out.push({ num, wire: "varint", value: readVarint(buf, pos) });
        break;
      case 1:
        out.push({ num, wire: "fixed64", value: take(buf, pos, 8) });
        break;
      case 2: {
        const length = readVarint(buf, pos);
        if (length > BigInt(buf.length - pos.i)) throw new WireError("unexpected EOF");
        out.push({ num, wire: "bytes", value: take(buf, pos, Number(length)) });
        break;
      }
      case 5:
        out.push({ num, wire: "fixed32", value: take(buf, pos, 4) });
        break;
      default:
        // 3/4 are the deprecated groups (Kubernetes types never use them), 6/7 do not exist.
        throw new WireError(`proto: illegal wireType ${wire}`);
    }
  }
  return out;
}

/** The varints of a packed repeated scalar field. */
export function readPacked(buf: Buffer): bigint[] {
  const out: bigint[] = [];
  const pos: Cursor = { i: 0 };
  while (pos.i < buf.length) out.push(readVarint(buf, pos));
  return out;
}
