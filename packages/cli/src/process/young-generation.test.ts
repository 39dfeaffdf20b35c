import { describe, expect, it } from "vitest";
import { SERVER_SEMI_SPACE_MIB, SYNC_HEAP_GROWING_PERCENT, youngGenerationArgv } from "./young-generation.js";

describe("server commands' young generation", () => {
  const proc = {
    execPath: "/usr/bin/node",
    execArgv: ["--enable-source-maps"],
    argv: ["/usr/bin/node", "/app/bin.js", "reports", "--kubeconfig", "k"],
    env: {},
  };
  it("re-runs a server command's line with a bounded semi-space", () => {
    expect(youngGenerationArgv(proc)).toEqual([
      "/usr/bin/node",
      `--max-semi-space-size=${SERVER_SEMI_SPACE_MIB}`,
      `--heap-growing-percent=${SYNC_HEAP_GROWING_PERCENT}`,
      "--enable-source-maps",
      "/app/bin.js",
      "reports",
      "--kubeconfig",
      "k",
    ]);
    for (const command of ["admission", "reporter", "playground", "sandbox"])
      expect(youngGenerationArgv({ ...proc, argv: ["node", "bin.js", command] })?.[1]).toBe(
        `--max-semi-space-size=${SERVER_SEMI_SPACE_MIB}`,
      );
  });
  it("turns allocation-site pretenuring off only for the commands that serve admission reviews", () => {
    const line = (command: string) => youngGenerationArgv({ ...proc, argv: ["node", "bin.js", command] });
    for (const command of ["admission", "playground"])
      expect(line(command)).toContain("--no-allocation-site-pretenuring");
    expect(line("reports")).not.toContain("--no-allocation-site-pretenuring");
    expect(line("sandbox")).not.toContain("--no-allocation-site-pretenuring");
    expect(line("reporter")).not.toContain("--no-allocation-site-pretenuring");
  });
  it("leaves short commands and help alone", () => {
    expect(youngGenerationArgv({ ...proc, argv: ["node", "bin.js", "apply", "p.yaml"] })).toBeUndefined();
    expect(youngGenerationArgv({ ...proc, argv: ["node", "bin.js"] })).toBeUndefined();
    expect(youngGenerationArgv({ ...proc, argv: ["node", "bin.js", "admission", "--help"] })).toBeUndefined();
  });
  it("leaves the user's own choice alone (flags or NODE_OPTIONS), so it never loops", () => {
    expect(youngGenerationArgv({ ...proc, execArgv: ["--max-semi-space-size=16"] })).toBeUndefined();
    expect(
      youngGenerationArgv({ ...proc, env: { NODE_OPTIONS: "--max-semi-space-size=2" } }),
    ).toBeUndefined();
  });
  it("bounds the heap growth of the cluster-syncing commands only, unless the user chose a growth", () => {
    const line = (command: string, more: Partial<typeof proc> = {}) =>
      youngGenerationArgv({ ...proc, ...more, argv: ["node", "bin.js", command] });
    const flag = `--heap-growing-percent=${SYNC_HEAP_GROWING_PERCENT}`;
    expect(line("reports")).toContain(flag);
    expect(line("reporter")).toContain(flag);
    for (const command of ["admission", "playground", "sandbox"]) expect(line(command)).not.toContain(flag);
    expect(line("reporter", { execArgv: ["--heap-growing-percent=80"] })).not.toContain(flag);
    expect(line("reports", { env: { NODE_OPTIONS: "--heap_growing_percent=20" } })).not.toContain(flag);
  });
});
