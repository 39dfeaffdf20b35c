/**
 * Translation of driver errors (node:sqlite, pg, mysql2) into {@link ReporterError}s with stable
 * codes, and the test for transient failures (deadlocks, busy database) worth retrying at once.
 */
import { ReporterError, type ReporterErrorCode } from "../errors.js";

interface DriverError {
  code?: unknown;
  errcode?: unknown;
  errno?: unknown;
  message?: unknown;
}

function fields(err: unknown): DriverError {
  return typeof err === "object" && err !== null ? (err as DriverError) : {};
}

/** SQLite primary result codes (the low byte of extended codes). */
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const SQLITE_FULL = 13;

function sqliteCode(err: DriverError): number | undefined {
  return err.code === "ERR_SQLITE_ERROR" && typeof err.errcode === "number" ? err.errcode & 0xff : undefined;
}

/** True when the error means the disk (or a table file) is full, on any of the three databases. */
export function isDiskFull(err: unknown): boolean {
  const e = fields(err);
  if (sqliteCode(e) === SQLITE_FULL) return true;
  if (e.code === "53100") return true; // PostgreSQL disk_full
  return e.errno === 1021 || e.errno === 1114; // MySQL ER_DISK_FULL, ER_RECORD_FILE_FULL
}

/** True for deadlocks, serialization failures and a busy SQLite file: the transaction may simply be retried. */
export function isTransient(err: unknown): boolean {
  const e = fields(err);
  const sqlite = sqliteCode(e);
  if (sqlite === SQLITE_BUSY || sqlite === SQLITE_LOCKED) return true;
  if (e.code === "40P01" || e.code === "40001") return true;
  return e.errno === 1213 || e.errno === 1205;
}

/** Wraps a driver error for `operation` (`write`, `read`); keeps ReporterErrors as they are. */
export function toStoreError(err: unknown, operation: "write" | "read"): ReporterError {
  if (err instanceof ReporterError) return err;
  const message = err instanceof Error ? err.message : String(err);
  let code: ReporterErrorCode = operation === "write" ? "STORE_WRITE_FAILED" : "STORE_READ_FAILED";
  if (isDiskFull(err)) code = "STORE_DISK_FULL";
  return new ReporterError(code, `${operation} failed: ${message}`, { cause: err });
}
