/**
 * FNV-1a 64-bit hashing over the UTF-8 bytes of a string, printed in decimal like Go's
 * `strconv.FormatUint(h.Sum64(), 10)`. Computed on four 16-bit limbs: no BigInt per byte.
 */

/** FNV-1a 64 of `input`'s UTF-8 encoding, as a decimal string. */
export function fnv1a64(input: string): string {
  // Offset basis 0xcbf29ce484222325, lowest limb first. The limbs are locals (not captured by a
  // closure), so V8 keeps them as small integers instead of allocating a number per byte.
  let h0 = 0x2325;
  let h1 = 0x8422;
  let h2 = 0x9ce4;
  let h3 = 0xcbf2;
  // Bytes of one character (up to 4), then hashed in the loop below.
  let b0 = 0;
  let b1 = 0;
  let b2 = 0;
  let b3 = 0;
  for (let i = 0; i < input.length; i++) {
    let c = input.charCodeAt(i);
    let n = 1;
    if (c < 0x80) b0 = c;
    else if (c < 0x800) {
      b0 = 0xc0 | (c >> 6);
      b1 = 0x80 | (c & 0x3f);
      n = 2;
    } else {
      const low = i + 1 < input.length ? input.charCodeAt(i + 1) : 0;
      if (c >= 0xd800 && c <= 0xdbff && low >= 0xdc00 && low <= 0xdfff) {
        i++;
        c = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
        b0 = 0xf0 | (c >> 18);
        b1 = 0x80 | ((c >> 12) & 0x3f);
        b2 = 0x80 | ((c >> 6) & 0x3f);
        b3 = 0x80 | (c & 0x3f);
        n = 4;
      } else {
        if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd; // lone surrogate: U+FFFD, as TextEncoder does
        b0 = 0xe0 | (c >> 12);
        b1 = 0x80 | ((c >> 6) & 0x3f);
        b2 = 0x80 | (c & 0x3f);
        n = 3;
      }
    }
    for (let k = 0; k < n; k++) {
      h0 ^= k === 0 ? b0 : k === 1 ? b1 : k === 2 ? b2 : b3;
      // h *= 0x100000001b3 (mod 2^64) = h * 0x1b3 + (h << 40)
      const t0 = h0 * 0x1b3;
      let t1 = h1 * 0x1b3;
      let t2 = h2 * 0x1b3 + (h0 << 8);
      const t3 = h3 * 0x1b3 + (h1 << 8);
      t1 += t0 >>> 16;
      h0 = t0 & 0xffff;
      t2 += t1 >>> 16;
      h1 = t1 & 0xffff;
      h3 = (t3 + (t2 >>> 16)) & 0xffff;
      h2 = t2 & 0xffff;
    }
  }
  const hi = BigInt(h3 * 0x10000 + h2);
  const lo = BigInt(h1 * 0x10000 + h0);
  return ((hi << 32n) | lo).toString(10);
}
