import type { JsonValue } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { resolveReferences } from "./reference.js";
import { validatePattern } from "./validate-pattern.js";

const probes = (liveness: number | string, readiness: number | string): JsonValue => ({
  spec: {
    containers: [
      {
        name: "c",
        livenessProbe: { tcpSocket: { port: liveness } },
        readinessProbe: { tcpSocket: { port: readiness } },
      },
    ],
  },
});

describe("$(...) references to other fields of the pattern (docs examples)", () => {
  const samePort = {
    spec: {
      "^(containers)": [
        {
          livenessProbe: { tcpSocket: { port: "$(./../../../readinessProbe/tcpSocket/port)" } },
          readinessProbe: { tcpSocket: { port: "3000" } },
        },
      ],
    },
  };

  it("makes the liveness port equal the readiness port written in the pattern", () => {
    expect(validatePattern(probes(3000, 3000), samePort).status).toBe("pass");
    expect(validatePattern(probes(8080, 3000), samePort).status).toBe("fail");
  });

  it("applies a leading operator to the referenced value", () => {
    const lower = structuredClone(samePort);
    const container = lower.spec["^(containers)"][0];
    if (container) container.livenessProbe.tcpSocket.port = "$(<./../../../readinessProbe/tcpSocket/port)";
    expect(validatePattern(probes(2000, 3000), lower).status).toBe("pass");
    expect(validatePattern(probes(3000, 3000), lower).status).toBe("fail");
  });

  it("resolves absolute paths from the pattern root", () => {
    const p = { spec: { limit: "2Gi", request: "$(<=/spec/limit)" } };
    expect(validatePattern({ spec: { limit: "2Gi", request: "1Gi" } }, p).status).toBe("pass");
    expect(validatePattern({ spec: { limit: "2Gi", request: "3Gi" } }, p).status).toBe("fail");
  });

  it("is an error when the reference points nowhere", () => {
    expect(validatePattern({ spec: { a: "1" } }, { spec: { a: "$(./../missing)" } })).toMatchObject({
      status: "error",
      path: "",
    });
  });
});

describe("resolveReferences", () => {
  const origin = { spec: { "=(limits)": { memory: "2Gi", count: 3 }, x: { y: "" } } };

  it.each([
    ["$(/spec/limits/memory)", "/spec/x/y/", "2Gi"],
    ["$(./../../limits/count)", "/spec/x/y/", 3],
    ["$(>=./../../limits/count)", "/spec/x/y/", ">=3"],
    ["size-$(./../../limits/memory)", "/spec/x/y/", "size-2Gi"],
    ["\\$(./../../limits/memory)", "/spec/x/y/", "\\$(./../../limits/memory)"],
  ])("%s at %s → %j", (text, path, expected) => {
    expect(resolveReferences(text, path, origin)).toEqual({ ok: true, value: expected });
  });

  it("rejects references to maps", () => {
    expect(resolveReferences("$(/spec/limits)", "/", origin).ok).toBe(false);
  });
});
