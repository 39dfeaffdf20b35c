/**
 * The databases the tests run against: SQLite in memory, and the local PostgreSQL and MariaDB
 * servers, each test run in its own schema / database (random suffix) that is dropped afterwards.
 * Point elsewhere with REPORTER_TEST_POSTGRES_URL / REPORTER_TEST_MYSQL_URL, or set one to `off`.
 */
import { randomBytes } from "node:crypto";
import mysql from "mysql2/promise";
import pg from "pg";
import { createStore } from "../store/connect.js";
import type { ReportStore } from "../store/types.js";

/** Default PostgreSQL URL of the tests. */
export const DEFAULT_POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/test";
/** Default MySQL/MariaDB URL of the tests. */
export const DEFAULT_MYSQL_URL = "mysql://root@127.0.0.1:3306/test";

/** A database the tests can open a fresh store on. */
export interface TestBackend {
  readonly name: "sqlite" | "postgres" | "mariadb";
  /** Opens an empty, migrated store; `cleanup` closes it and drops its schema / database. */
  open(): Promise<{ store: ReportStore; cleanup: () => Promise<void> }>;
}

function suffix(): string {
  return `reporter_t_${randomBytes(5).toString("hex")}`;
}

/** The backends enabled by the environment (all three by default). */
export function testBackends(env: NodeJS.ProcessEnv = process.env): TestBackend[] {
  const out: TestBackend[] = [
    {
      name: "sqlite",
      async open() {
        const store = await createStore({ type: "sqlite", path: ":memory:" });
        return { store, cleanup: () => store.close() };
      },
    },
  ];
  const pgUrl = env.REPORTER_TEST_POSTGRES_URL ?? DEFAULT_POSTGRES_URL;
  if (pgUrl !== "off") {
    out.push({
      name: "postgres",
      async open() {
        const schema = suffix();
        const store = await createStore({
          type: "postgres",
          connectionString: pgUrl,
          schema,
          maxConnections: 4,
        });
        return {
          store,
          async cleanup() {
            await store.close();
            const client = new pg.Client({ connectionString: pgUrl });
            await client.connect();
            try {
              await client.query(`drop schema if exists "${schema}" cascade`);
            } finally {
              await client.end();
            }
          },
        };
      },
    });
  }
  const myUrl = env.REPORTER_TEST_MYSQL_URL ?? DEFAULT_MYSQL_URL;
  if (myUrl !== "off") {
    out.push({
      name: "mariadb",
      async open() {
        const database = suffix();
        const admin = await mysql.createConnection(myUrl);
        try {
          await admin.query(`create database \`${database}\` character set utf8mb4 collate utf8mb4_bin`);
        } finally {
          await admin.end();
        }
        const url = new URL(myUrl);
        url.pathname = `/${database}`;
        const store = await createStore({
          type: "mariadb",
          connectionString: url.toString(),
          maxConnections: 4,
        });
        return {
          store,
          async cleanup() {
            await store.close();
            const conn = await mysql.createConnection(myUrl);
            try {
              await conn.query(`drop database if exists \`${database}\``);
            } finally {
              await conn.end();
            }
          },
        };
      },
    });
  }
  return out;
}
