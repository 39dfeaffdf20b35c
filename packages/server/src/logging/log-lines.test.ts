import { describe, expect, it } from "vitest";
import { createControllerLogger, type LogSettings, logSettings, timestamp } from "./log-lines.js";

const AT = Date.UTC(2026, 11, 2, 6, 44, 16, 250);

function lines(settings: Partial<LogSettings>) {
  let text = "";
  const logger = createControllerLogger({
    format: "text",
    verbosity: 2,
    timestampFormat: "rfc3339",
    ...settings,
    name: "admission-controller",
    stream: { write: (s: string) => (text += s) },
    now: () => AT,
  });
  return { logger, text: () => text };
}

describe("log lines in upstream's shape", () => {
  it("writes zap's JSON objects with --loggingFormat=json", () => {
    const { logger, text } = lines({ format: "json" });
    logger.info({ policy: "require-labels", err: new Error("boom") }, "policy ready");
    logger.error({}, "cannot write report");
    expect(
      text()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    ).toEqual([
      {
        level: "info",
        ts: "2026-12-02T06:44:16Z",
        logger: "admission-controller",
        msg: "policy ready",
        policy: "require-labels",
        err: "boom",
      },
      {
        level: "error",
        ts: "2026-12-02T06:44:16Z",
        logger: "admission-controller",
        msg: "cannot write report",
      },
    ]);
  });

  it("writes zap's console layout with --loggingFormat=text (the default)", () => {
    const { logger, text } = lines({});
    logger.warn({ flag: "--dumpPayload" }, "accepted without effect");
    logger.info({}, "started");
    expect(text()).toBe(
      '2026-12-02T06:44:16Z\tWARN\tadmission-controller\taccepted without effect\t{"flag": "--dumpPayload"}\n' +
        "2026-12-02T06:44:16Z\tINFO\tadmission-controller\tstarted\n",
    );
  });

  it("shows debug lines (V(4)) from -v=4 on, and --log-level wins over -v", () => {
    const quiet = lines({ verbosity: 3 });
    quiet.logger.debug({}, "detail");
    quiet.logger.info({}, "shown");
    expect(quiet.text()).not.toContain("detail");
    const verbose = lines({ verbosity: 4, format: "json" });
    verbose.logger.debug({}, "detail");
    expect(JSON.parse(verbose.text()).level).toBe("Level(-4)");
    const text = lines({ verbosity: 6 });
    text.logger.debug({}, "detail");
    expect(text.text()).toContain("\tLEVEL(-4)\t");
    const errorsOnly = lines({ verbosity: 6, level: "error" });
    errorsOnly.logger.warn({}, "hidden");
    errorsOnly.logger.error({}, "shown");
    expect(errorsOnly.text()).not.toContain("hidden");
    expect(errorsOnly.text()).toContain("shown");
  });

  it("formats timestamps as --loggingtsFormat asks", () => {
    expect(timestamp(AT, "rfc3339")).toBe("2026-12-02T06:44:16Z");
    expect(timestamp(AT, "iso8601")).toBe("2026-12-02T06:44:16.250Z");
    expect(timestamp(AT, "rfc3339nano")).toBe("2026-12-02T06:44:16.25Z");
    expect(timestamp(AT, "millis")).toBe(AT);
    expect(timestamp(AT, "nanos")).toBe(AT * 1e6);
  });

  it("refuses unknown formats and levels", () => {
    const base = { loggingFormat: "text", loggingtsFormat: "RFC3339", v: 2, logLevel: undefined };
    expect(logSettings(base)).toEqual({
      ok: true,
      settings: { format: "text", verbosity: 2, timestampFormat: "rfc3339" },
    });
    expect(logSettings({ ...base, loggingFormat: "yaml" })).toEqual({
      ok: false,
      message: 'invalid value "yaml" for flag -loggingFormat: text or json',
    });
    expect(logSettings({ ...base, loggingtsFormat: "unix" }).ok).toBe(false);
    expect(logSettings({ ...base, logLevel: "loud" }).ok).toBe(false);
  });
});
