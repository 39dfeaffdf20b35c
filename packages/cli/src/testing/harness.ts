import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { CliIo } from "../io.js";
import { runCli } from "../program.js";

/** Output of an in-process CLI run. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process in `cwd`, with optional stdin text; stderr is not a TTY. */
export async function cli(args: readonly string[], cwd: string, stdin?: string): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    cwd,
    env: {},
    isTTY: false,
    ...(stdin !== undefined ? { readStdin: async () => stdin } : {}),
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}

/** A temporary folder filled with `files` (path → content); call `cleanup` when done. */
export function tempTree(files: Record<string, string>): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "kyverno-ts-cli-"));
  for (const [path, content] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A ClusterPolicy requiring the label `app` on Pods (autogen on), as YAML. */
export const REQUIRE_APP_LABEL = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: require-app-label
  annotations:
    policies.kyverno.io/category: Best Practices
    policies.kyverno.io/severity: medium
spec:
  validationFailureAction: Enforce
  rules:
    - name: check-app-label
      match:
        any:
          - resources:
              kinds:
                - Pod
      validate:
        message: "label 'app' is required"
        pattern:
          metadata:
            labels:
              app: "?*"
`;

/** Two Pods: `good` (labelled) and `bad` (unlabelled), in namespace `default`. */
export const PODS = `apiVersion: v1
kind: Pod
metadata:
  name: good
  labels:
    app: web
spec:
  containers:
    - name: c
      image: nginx:1.25
---
apiVersion: v1
kind: Pod
metadata:
  name: bad
spec:
  containers:
    - name: c
      image: nginx:1.25
`;

/** A Deployment without the `app` label on its Pod template. */
export const BAD_DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: bad-deploy
  namespace: prod
spec:
  selector:
    matchLabels:
      x: y
  template:
    metadata:
      labels:
        x: y
    spec:
      containers:
        - name: c
          image: nginx:1.25
`;
