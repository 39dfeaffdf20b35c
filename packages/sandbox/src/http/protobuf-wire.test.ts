import { describe, expect, it } from "vitest";
import {
  bool,
  bytes,
  decodeMessage,
  i32,
  i64,
  inline,
  intOrString,
  map,
  msg,
  quantity,
  type Schema,
  str,
  time,
} from "./protobuf-schema.js";
import { readFields, readVarint, WireError } from "./protobuf-wire.js";

/** A minimal protobuf writer for building test messages. */
const pb = {
  varint(n: bigint | number): Buffer {
    let v = BigInt.asUintN(64, BigInt(n));
    const out: number[] = [];
    do {
      const byte = Number(v & 0x7fn);
      v >>= 7n;
      out.push(v === 0n ? byte : byte | 0x80);
    } while (v !== 0n);
    return Buffer.from(out);
  },
  /** A varint field. */
  v(num: number, n: bigint | number): Buffer {
    return Buffer.concat([pb.varint(num << 3), pb.varint(n)]);
  },
  /** A length-delimited field (string, bytes or message). */
  ld(num: number, ...content: Array<Buffer | string>): Buffer {
    const body = Buffer.concat(content.map((c) => (typeof c === "string" ? Buffer.from(c) : c)));
    return Buffer.concat([pb.varint((num << 3) | 2), pb.varint(body.length), body]);
  },
  /** A map entry field. */
  entry(num: number, key: string, value?: Buffer | string): Buffer {
    return pb.ld(num, pb.ld(1, key), ...(value === undefined ? [] : [pb.ld(2, value)]));
  },
};

describe("protobuf wire format", () => {
  it("reads varints of one to ten bytes", () => {
    const read = (bytes: number[]) => readVarint(Buffer.from(bytes), { i: 0 });
    expect(read([0x00])).toBe(0n);
    expect(read([0x7f])).toBe(127n);
    expect(read([0xac, 0x02])).toBe(300n);
    expect(read([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])).toBe(2n ** 64n - 1n);
    expect(pb.varint(-1).length).toBe(10);
  });

  it("rejects truncated and overlong varints", () => {
    expect(() => readVarint(Buffer.from([0x80, 0x80]), { i: 0 })).toThrow(new WireError("unexpected EOF"));
    expect(() => readVarint(Buffer.alloc(11, 0xff), { i: 0 })).toThrow("proto: integer overflow");
  });

  it("splits a message into fields, fixed-width ones included", () => {
    const fixed64 = Buffer.concat([pb.varint((4 << 3) | 1), Buffer.alloc(8, 1)]);
    const fixed32 = Buffer.concat([pb.varint((5 << 3) | 5), Buffer.alloc(4, 2)]);
    const fields = readFields(Buffer.concat([pb.v(1, 150), pb.ld(2, "hi"), fixed64, fixed32]));
    expect(fields.map((f) => [f.num, f.wire])).toEqual([
      [1, "varint"],
      [2, "bytes"],
      [4, "fixed64"],
      [5, "fixed32"],
    ]);
    expect(fields[0]?.value).toBe(150n);
    expect(String(fields[1]?.value)).toBe("hi");
  });

  it("rejects truncation, impossible lengths, groups and field number 0", () => {
    const whole = pb.ld(1, "hello");
    for (let cut = 1; cut < whole.length; cut++)
      expect(() => readFields(whole.subarray(0, cut))).toThrow("unexpected EOF");
    const huge = Buffer.concat([pb.varint((1 << 3) | 2), pb.varint(2n ** 62n), Buffer.from("x")]);
    expect(() => readFields(huge)).toThrow("unexpected EOF");
    expect(() => readFields(Buffer.from([(1 << 3) | 3]))).toThrow("proto: illegal wireType 3");
    expect(() => readFields(Buffer.from([0x00, 0x00]))).toThrow("proto: illegal tag 0");
    expect(() => readFields(Buffer.from([(1 << 3) | 1, 0, 0]))).toThrow("unexpected EOF");
  });
});

describe("schema-driven decoding", () => {
  const LEAF: Schema = { 1: str("name", "keep"), 2: i32("count") };
  const SCHEMA: Schema = {
    1: str("name"),
    2: i32("small"),
    3: i64("big"),
    4: bool("flag"),
    5: i32("pointer", "keep"),
    6: str("tags", "list"),
    7: msg("child", () => LEAF),
    8: msg("children", () => LEAF, "list"),
    9: map("labels"),
    10: map("data", "bytes"),
    11: map("limits", "quantity"),
    12: str("required", "list", "null"),
    13: inline(() => ({ 1: str("embedded") })),
    14: i32("numbers", "list"),
    15: time("when"),
    16: quantity("size"),
    17: intOrString("port"),
    18: bytes("raw"),
  };

  it("decodes scalars, nested and repeated messages, maps and inline structs", () => {
    const buf = Buffer.concat([
      pb.ld(1, "web"),
      pb.v(2, -5),
      pb.v(3, 2n ** 40n),
      pb.v(4, 1),
      pb.ld(6, "a"),
      pb.ld(6, "b"),
      pb.ld(7, pb.ld(1, "c"), pb.v(2, 3)),
      pb.ld(8, pb.ld(1, "x")),
      pb.ld(8, pb.ld(1, ""), pb.v(2, 0)),
      pb.entry(9, "app", "web"),
      pb.entry(9, "tier", "front"),
      pb.entry(9, "empty"),
      pb.entry(10, "bin", Buffer.from([0, 1, 2])),
      pb.entry(11, "cpu", pb.ld(1, "250m")),
      pb.entry(11, "memory"),
      pb.ld(13, pb.ld(1, "merged")),
      pb.ld(14, pb.varint(1), pb.varint(2)),
      pb.v(14, 3),
      pb.ld(18, Buffer.from("raw")),
    ]);
    expect(decodeMessage(buf, SCHEMA)).toEqual({
      name: "web",
      small: -5,
      big: 2 ** 40,
      flag: true,
      tags: ["a", "b"],
      child: { name: "c", count: 3 },
      children: [{ name: "x" }, { name: "" }],
      labels: { app: "web", tier: "front", empty: "" },
      data: { bin: "AAEC" },
      limits: { cpu: "250m", memory: "0" },
      required: null,
      embedded: "merged",
      numbers: [1, 2, 3],
      raw: "cmF3",
    });
  });

  it("drops zero values unless kept, keeps empty messages, skips unknown fields", () => {
    const buf = Buffer.concat([
      pb.ld(1, ""),
      pb.v(2, 0),
      pb.v(4, 0),
      pb.v(5, 0),
      pb.ld(7),
      pb.v(99, 7),
      pb.ld(100, "unknown"),
      pb.ld(12, "r"),
    ]);
    expect(decodeMessage(buf, SCHEMA)).toEqual({ pointer: 0, child: {}, required: ["r"] });
  });

  it("decodes Time, Quantity and IntOrString like their JSON forms", () => {
    const { 12: _required, ...schema } = SCHEMA;
    const decoded = decodeMessage(
      Buffer.concat([
        pb.ld(15, pb.v(1, 1700000000), pb.v(2, 5)),
        pb.ld(16, pb.ld(1, "1Gi")),
        pb.ld(17, pb.v(2, 8080)),
      ]),
      schema,
    );
    expect(decoded).toEqual({ when: "2023-11-14T22:13:20Z", size: "1Gi", port: 8080 });
    const named = decodeMessage(pb.ld(17, pb.v(1, 1), pb.ld(3, "http")), schema);
    expect(named).toEqual({ port: "http" });
    expect(decodeMessage(Buffer.concat([pb.ld(15), pb.ld(16), pb.ld(17)]), schema)).toEqual({
      when: null,
      size: "0",
      port: 0,
    });
    expect(() => decodeMessage(pb.ld(15, pb.v(1, 2n ** 62n)), schema)).toThrow("timestamp out of range");
  });

  it("keeps a `__proto__` map key as an ordinary entry", () => {
    const decoded = decodeMessage(pb.entry(9, "__proto__", "x"), SCHEMA);
    expect(JSON.stringify(decoded)).toBe('{"labels":{"__proto__":"x"},"required":null}');
    expect(Object.getPrototypeOf(decoded.labels)).toBe(Object.prototype);
  });

  it("rejects a field with the wrong wire type", () => {
    expect(() => decodeMessage(pb.v(1, 3), SCHEMA)).toThrow("proto: wrong wireType = 0 for field name");
    expect(() => decodeMessage(pb.ld(2, "x"), SCHEMA)).toThrow("proto: wrong wireType = 2 for field small");
    expect(() => decodeMessage(pb.ld(7, pb.ld(2, "x")), SCHEMA)).toThrow(WireError);
  });

  it("rejects nesting deeper than any Kubernetes type", () => {
    const RECURSIVE: Schema = { 1: msg("next", () => RECURSIVE) };
    let buf: Buffer = Buffer.alloc(0);
    for (let i = 0; i < 100; i++) buf = pb.ld(1, buf);
    expect(() => decodeMessage(buf, RECURSIVE)).toThrow("nested too deeply");
  });
});
