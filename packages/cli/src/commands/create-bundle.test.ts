import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { loadPolicy, loadPolicyException, parseDocuments } from "@kyverno-ts/api";
import { afterEach, describe, expect, it } from "vitest";
import type { CliIo } from "../io.js";
import { cli } from "../testing/harness.js";
import { BUNDLED_POLICIES, runBundle } from "./bundle.js";

const dirs: string[] = [];
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), "kyverno-ts-cli-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function documents(text: string, file = "out.yaml") {
  const parsed = parseDocuments(text, file);
  expect(parsed.errors).toEqual([]);
  return parsed.documents;
}

describe("kyverno-ts create exception", () => {
  it("prints a kyverno.io/v2 PolicyException that the api loader accepts", async () => {
    const run = await cli(
      [
        "create",
        "exception",
        "my-exception",
        "--namespace",
        "my-ns",
        "--policy-rules",
        "policy,rule-1,rule-2",
        "--policy-rules",
        "team/other,check",
        "--any",
        "kind=Pod,kind=Deployment,name=test-*",
        "--any",
        "namespace=dev,operation=create",
      ],
      process.cwd(),
    );
    expect(run.code).toBe(0);
    const [doc] = documents(run.stdout);
    const loaded = loadPolicyException(doc?.value ?? null, { file: "out.yaml", document: 0 });
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    expect(loaded.value).toMatchObject({
      apiVersion: "kyverno.io/v2",
      kind: "PolicyException",
      metadata: { name: "my-exception", namespace: "my-ns" },
      spec: {
        background: true,
        exceptions: [
          { policyName: "policy", ruleNames: ["rule-1", "rule-2"] },
          { policyName: "team/other", ruleNames: ["check"] },
        ],
        match: {
          any: [
            { resources: { kinds: ["Pod", "Deployment"], names: ["test-*"] } },
            { resources: { namespaces: ["dev"], operations: ["CREATE"] } },
          ],
        },
      },
    });
  });

  it("supports --all, --background false and -o <file>", async () => {
    const dir = temp();
    const run = await cli(
      [
        "create",
        "exception",
        "debug",
        "--policy-rules",
        "p,r",
        "--all",
        "kind=Pod,namespace=debug",
        "--background",
        "false",
        "-o",
        "exceptions/debug.yaml",
      ],
      dir,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("");
    const [doc] = documents(readFileSync(join(dir, "exceptions", "debug.yaml"), "utf8"));
    const loaded = loadPolicyException(doc?.value ?? null, { file: "debug.yaml", document: 0 });
    expect(loaded.ok && loaded.value.spec).toMatchObject({
      background: false,
      match: { all: [{ resources: { kinds: ["Pod"], namespaces: ["debug"] } }] },
    });
  });

  it("exits 2 with a clear message on missing or malformed flags", async () => {
    const noRules = await cli(["create", "exception", "x", "--any", "kind=Pod"], process.cwd());
    expect(noRules.code).toBe(2);
    expect(noRules.stderr).toContain("no --policy-rules given");
    const noMatch = await cli(["create", "exception", "x", "--policy-rules", "p,r"], process.cwd());
    expect(noMatch.stderr).toContain("no --any or --all resource filter given");
    const badKey = await cli(
      ["create", "exception", "x", "--policy-rules", "p,r", "--any", "knd=Pod"],
      process.cwd(),
    );
    expect(badKey.stderr).toContain('invalid resource filter key "knd"');
    const onlyPolicy = await cli(
      ["create", "exception", "x", "--policy-rules", "p", "--any", "kind=Pod"],
      process.cwd(),
    );
    expect(onlyPolicy.stderr).toContain('invalid --policy-rules "p"');
    const badName = await cli(
      ["create", "exception", "Bad_Name", "--policy-rules", "p,r", "--any", "kind=Pod"],
      process.cwd(),
    );
    expect(badName.code).toBe(2);
  });
});

describe("kyverno-ts bundle", () => {
  it("prints every bundled policy with the chosen action, and nothing from policies/tests", async () => {
    const files = readdirSync(BUNDLED_POLICIES).filter((f) => f.endsWith(".yaml"));
    expect(files.length).toBeGreaterThan(0);
    for (const action of ["Enforce", "Audit"] as const) {
      const run = await cli(["bundle", "--action", action], process.cwd());
      expect(run.code).toBe(0);
      const docs = documents(run.stdout);
      expect(docs.length).toBe(files.length);
      for (const doc of docs) {
        const loaded = loadPolicy(doc.value, { file: "bundle", document: doc.document });
        expect(loaded.ok).toBe(true);
        if (loaded.ok) expect(loaded.value.spec.validationFailureAction).toBe(action);
      }
    }
  });

  it("writes the files into --out, changing only the failure action", async () => {
    const dir = temp();
    const run = await cli(["bundle", "--action", "enforce", "--out", "prod"], dir);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("written to prod (validationFailureAction: Enforce)");
    for (const name of readdirSync(join(dir, "prod"))) {
      const original = readFileSync(new URL(name, BUNDLED_POLICIES), "utf8");
      const written = readFileSync(join(dir, "prod", name), "utf8");
      expect(written).toBe(
        original.replace(/validationFailureAction: \w+/, "validationFailureAction: Enforce"),
      );
    }
  });

  it("rejects an unknown action and reports a missing policy folder", async () => {
    const bad = await cli(["bundle", "--action", "Block"], process.cwd());
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("expected Audit or Enforce");
    let stderr = "";
    const io: CliIo = {
      stdout: { write: () => true },
      stderr: { write: (s: string) => (stderr += s) },
      cwd: process.cwd(),
      env: {},
      isTTY: false,
    };
    const missing = join(temp(), "nowhere");
    expect(runBundle({ action: "Audit" }, io, pathToFileURL(`${missing}/`))).toBe(2);
    expect(stderr).toContain(`the bundled policy folder ${missing}/ does not exist`);
  });
});
