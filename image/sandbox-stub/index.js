// The container image leaves out @kyverno-ts/sandbox (the local Kubernetes API server behind
// `kyverno-ts sandbox` and `kyverno-ts playground`): those commands are for trying kyverno-ts on a
// workstation, and the sandbox's CEL interpreter would add about 9 MB to every pod. This stand-in makes
// them say so instead of failing on a missing package. See image/README.md.
const MESSAGE =
  "kyverno-ts sandbox and playground are not part of the container image: run them from the repository " +
  "(`npm ci && npm start`) or with `npx kyverno-ts` on a machine with Node.js 24.\n";

/** `kyverno-ts sandbox`: prints why it is not available here and exits with 2. */
export async function runSandboxCommand() {
  process.stderr.write(MESSAGE);
  return 2;
}

/** Used by `kyverno-ts playground`: fails with the same explanation. */
export async function startSandbox() {
  throw new Error(MESSAGE.trim());
}
