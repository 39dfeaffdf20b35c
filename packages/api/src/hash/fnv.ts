/**
 * FNV-1a over a string's UTF-16 code units, 32 bits unsigned: a cheap, stable hash for remembering
 * that a text was seen without keeping it (the metrics' refused series, the event recorder's notes).
 * Not for security.
 */
export function fnv1a32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
