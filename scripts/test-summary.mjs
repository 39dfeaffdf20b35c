// Prints one closing line "Tests: N passed, N failed, N skipped" from Vitest's JSON report.
import { readFileSync } from "node:fs";

const file = process.argv[2] ?? ".artifacts/vitest.json";
try {
  const report = JSON.parse(readFileSync(file, "utf8"));
  const passed = report.numPassedTests ?? 0;
  const failed = report.numFailedTests ?? 0;
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  console.log(`Tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
} catch (err) {
  console.error(`no test report at ${file}: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
}
