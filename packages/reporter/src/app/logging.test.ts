import { createManualClock } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { createReporterLogger } from "./logging.js";

describe("createReporterLogger", () => {
  it("stamps console lines with the injected clock", () => {
    const lines: string[] = [];
    const clock = createManualClock(Date.UTC(2026, 4, 17, 8, 30, 0));
    const logger = createReporterLogger(
      { logLevel: 0, encoding: "console" },
      { write: (text) => lines.push(text) },
      clock,
    );
    logger.info({ kind: "PolicyReport" }, "synced");
    clock.advance(1500);
    logger.warn({}, "late");
    logger.debug({}, "below the level");
    expect(lines).toEqual([
      "2026-05-17T08:30:00.000Z INFO  synced kind=PolicyReport\n",
      "2026-05-17T08:30:01.500Z WARN  late\n",
    ]);
  });
});
