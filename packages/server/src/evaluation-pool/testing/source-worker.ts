/**
 * Test-only entry of an evaluation worker that runs the TypeScript sources: vitest transforms the
 * tests, but a worker thread loads modules with Node itself. The repository's module hooks
 * (`testing/ts-hooks.ts`) resolve `.js` imports to the sources first; start the worker with
 * `execArgv: SOURCE_WORKER_EXEC_ARGV`.
 */
await import(new URL("../../testing/ts-hooks.ts", import.meta.url).href);
await import(new URL("../worker.ts", import.meta.url).href);
