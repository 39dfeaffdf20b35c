import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ERROR_CODES, isReporterError, ReporterError } from "./errors.js";

describe("error codes", () => {
  it("documents every code in the package README", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const undocumented = Object.keys(ERROR_CODES).filter(
      (code) => !new RegExp(`\\| \`${code}\` +\\|`).test(readme),
    );
    expect(undocumented).toEqual([]);
  });

  it("tells errors apart by code", () => {
    const error = new ReporterError("STORE_DISK_FULL", "disk full", { cause: new Error("SQLITE_FULL") });
    expect(isReporterError(error)).toBe(true);
    expect(isReporterError(error, "STORE_DISK_FULL")).toBe(true);
    expect(isReporterError(error, "STORE_WRITE_FAILED")).toBe(false);
    expect(isReporterError(new Error("disk full"))).toBe(false);
    expect(error.cause).toBeInstanceOf(Error);
  });
});
