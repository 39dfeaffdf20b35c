/**
 * Bulk inserts and count upserts, per dialect. PostgreSQL gets one `INSERT … SELECT FROM unnest()`
 * per chunk (one array parameter per column: parse and plan stay small, ~2.5x faster than
 * multi-row VALUES); SQLite and MySQL get multi-row VALUES under their parameter limits.
 */
import { CompiledQuery, sql, type Transaction } from "kysely";
import type { Database } from "./schema.js";
import type { StoreDialect } from "./types.js";

/** Bound parameters per VALUES statement on MySQL: under its 65535. */
const MAX_PARAMS = 16_000;
/**
 * Rows per VALUES statement on SQLite. A statement of 842 rows × 19 columns compiles to a program
 * of several hundred KiB, and the driver caches up to 256 prepared statements by text: with every
 * batch ending in a chunk of a different size, that cache held ~100 MiB outside the JS heap. SQLite
 * runs in the process, so small statements cost nothing in round trips.
 */
const SQLITE_ROWS = 64;
/** Rows per unnest statement on PostgreSQL. */
const PG_ROWS = 5_000;

/** Integer columns (every other column is text). */
const INTEGER_COLUMNS: ReadonlySet<string> = new Set([
  "scored",
  "ts",
  "created",
  "pass",
  "fail",
  "warn",
  "error",
  "skip",
  "total",
  "cluster",
  "per_category",
  "mask",
]);

/** How an insert resolves a key conflict: add the new values of `increment` to the stored ones. */
export interface Increment {
  key: string;
  increment: readonly string[];
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Chunks of `most` items, the rest in chunks of decreasing powers of two: a table's inserts then
 * have a handful of distinct statement texts, which the SQLite driver prepares once and reuses.
 */
function stableChunks<T>(items: readonly T[], most: number): T[][] {
  const out: T[][] = [];
  let i = 0;
  for (; i + most <= items.length; i += most) out.push(items.slice(i, i + most));
  for (let size = 2 ** Math.floor(Math.log2(most)); i < items.length && size >= 1; size /= 2) {
    if (i + size <= items.length) {
      out.push(items.slice(i, i + size));
      i += size;
    }
  }
  return out;
}

/** An identifier quoted for the dialect (the names here are the schema's own, never user input). */
function quote(dialect: StoreDialect, name: string): string {
  return dialect === "mysql" ? `\`${name}\`` : `"${name}"`;
}

function onConflict(dialect: StoreDialect, table: string, conflict: Increment | undefined): string {
  if (!conflict) return "";
  const q = (name: string) => quote(dialect, name);
  if (dialect === "mysql") {
    // MariaDB has no row alias syntax; VALUES(col) works on both.
    const sets = conflict.increment.map((c) => `${q(c)} = ${q(c)} + values(${q(c)})`);
    return ` on duplicate key update ${sets.join(", ")}`;
  }
  const sets = conflict.increment.map((c) => `${q(c)} = ${q(table)}.${q(c)} + ${q("excluded")}.${q(c)}`);
  return ` on conflict (${q(conflict.key)}) do update set ${sets.join(", ")}`;
}

/**
 * Inserts `rows` (objects with every column) into `table`, optionally incrementing on conflict. The
 * statement text is written directly (not through kysely's builder, which allocated a node per
 * value: about a third of all allocation during an initial sync) and sent with flat parameters.
 */
export async function insertRows<R extends object>(
  trx: Transaction<Database>,
  dialect: StoreDialect,
  table: string,
  columns: readonly (keyof R & string)[],
  rows: readonly R[],
  conflict?: Increment,
): Promise<void> {
  if (rows.length === 0) return;
  const target = `insert into ${quote(dialect, table)} (${columns.map((c) => quote(dialect, c)).join(", ")})`;
  const suffix = onConflict(dialect, table, conflict);
  if (dialect === "postgres") {
    const casts = columns.map((c, i) => `$${i + 1}::${INTEGER_COLUMNS.has(c) ? "bigint[]" : "text[]"}`);
    const text = `${target} select * from unnest(${casts.join(", ")})${suffix}`;
    for (const part of chunks(rows, PG_ROWS)) {
      const arrays = columns.map((c) => part.map((r) => r[c] ?? null));
      await trx.executeQuery(CompiledQuery.raw(text, arrays));
    }
    return;
  }
  const tuple = `(${columns.map(() => "?").join(", ")})`;
  const most = dialect === "sqlite" ? SQLITE_ROWS : Math.max(1, Math.floor(MAX_PARAMS / columns.length));
  for (const part of stableChunks(rows, most)) {
    const params: unknown[] = new Array(part.length * columns.length);
    let at = 0;
    for (const row of part) for (const c of columns) params[at++] = row[c] ?? null;
    const text = `${target} values ${Array.from(part, () => tuple).join(", ")}${suffix}`;
    await trx.executeQuery(CompiledQuery.raw(text, params));
  }
}

/** Deletes the rows with these keys whose every count column is now zero (or less). */
export async function deleteEmpty(
  trx: Transaction<Database>,
  table: string,
  keys: readonly string[],
  counts: readonly string[],
): Promise<void> {
  for (const part of chunks(keys, 1000)) {
    const zero = counts.map((c) => sql`${sql.ref(c)} <= 0`);
    await sql`delete from ${sql.table(table)} where ${sql.ref("agg_key")} in (${sql.join(part)}) and ${sql.join(
      zero,
      sql` and `,
    )}`.execute(trx);
  }
}
