#!/usr/bin/env node
// The `kyverno-ts` command. npm links a workspace's `bin` while installing, before the `prepare` script
// builds `dist/`; a bin pointing into `dist/` would be skipped on a fresh clone and `npx kyverno-ts`
// would not exist. This committed file is always there to link, and loads the built CLI (which checks
// the Node.js version before anything else).
import { existsSync } from "node:fs";

const entry = new URL("../dist/bin.js", import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    "kyverno-ts is not built yet: run `npm run build` in the repository (`npm ci` builds it too).\n",
  );
  process.exit(2);
}
await import(entry.href);
