/** Running evaluation workers from the TypeScript sources in tests. */

/** The worker module for `EvaluationPoolOptions.workerUrl` in tests. */
export const SOURCE_WORKER_URL = new URL("./source-worker.ts", import.meta.url);

/** `execArgv` a source worker needs (the sources use TypeScript syntax beyond types). */
export const SOURCE_WORKER_EXEC_ARGV = ["--experimental-transform-types", "--no-warnings"];
