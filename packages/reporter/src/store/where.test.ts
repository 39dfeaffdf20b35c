import { CompiledQuery, Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "./migrations.js";
import type { Database } from "./schema.js";
import { createSqliteDialect } from "./sqlite-driver.js";
import { resourceCountsWhere, resultsWhere } from "./where.js";

/** SQLite's plan of a compiled query, its steps joined. */
async function plan(db: Kysely<Database>, query: CompiledQuery): Promise<string> {
  const { rows } = await db.executeQuery<{ detail: string }>(
    CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
  );
  return rows.map((r) => r.detail).join(" | ");
}

describe("the namespaced scope", () => {
  let db: Kysely<Database>;
  beforeAll(async () => {
    db = new Kysely<Database>({ dialect: createSqliteDialect({ path: ":memory:" }).dialect });
    await migrate(db, "sqlite");
  });
  afterAll(async () => {
    await db.destroy();
  });

  it("is a range the list indexes seek to, so a page skips the cluster-scoped rows", async () => {
    const results = db
      .selectFrom("results")
      .selectAll()
      .where(resultsWhere({ scope: "namespaced", status: ["fail"] }, "sqlite"))
      .orderBy("results.namespace")
      .orderBy("results.resource_name")
      .orderBy("results.policy")
      .orderBy("results.report_id")
      .orderBy("results.id")
      .limit(25)
      .compile();
    expect(await plan(db, results)).toMatch(/SEARCH results USING INDEX results_list \(namespace>\?\)/);
    const resources = db
      .selectFrom("resource_counts")
      .selectAll()
      .where(resourceCountsWhere("resource_counts", { scope: "namespaced" }, "sqlite"))
      .orderBy("namespace")
      .orderBy("name")
      .orderBy("resource_id")
      .orderBy("source")
      .limit(25)
      .compile();
    expect(await plan(db, resources)).toMatch(
      /SEARCH resource_counts USING INDEX resource_counts_list \(namespace>\?\)/,
    );
  });

  it("keeps every namespaced row and no cluster-scoped one", async () => {
    for (const [i, namespace] of ["", "a", "kube-system", "z"].entries()) {
      await sql`insert into results (report_id, id, namespace, source, policy, rule, status, severity, category, message, scored, ts, properties, resource_id, resource_api_version, resource_kind, resource_name, resource_namespace, resource_uid)
        values (${`r${i}`}, ${`id${i}`}, ${namespace}, 'kyverno', 'p', 'r', 'fail', '', '', '', 1, 0, '{}', '', '', '', '', '', '')`.execute(
        db,
      );
    }
    const rows = await db
      .selectFrom("results")
      .select("namespace")
      .where(resultsWhere({ scope: "namespaced" }, "sqlite"))
      .orderBy("namespace")
      .execute();
    expect(rows.map((r) => r.namespace)).toEqual(["a", "kube-system", "z"]);
  });
});
