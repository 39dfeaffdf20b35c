import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { loadPolicy } from "../policy/load.js";
import { loadTest, loadUserInfo, loadValues } from "../test/load.js";
import type { TestFile } from "../test/types.js";
import { classifyDocument } from "./classify.js";
import { formatLoadError, type LoadError, type Loaded } from "./errors.js";
import { parseDocuments } from "./parse.js";

const ROOT = fileURLToPath(new URL("../../../../../shared/conformance/kyverno-policies/", import.meta.url));
const CEL_SETS = /-(cel|vpol|mpol|gpol)$/;

/** Every classic `kyverno-test.yaml` (CEL sets skipped). */
function classicTests(): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.name === "kyverno-test.yaml") found.push(path);
    }
  };
  for (const set of readdirSync(ROOT, { withFileTypes: true })) {
    if (set.isDirectory() && !CEL_SETS.test(set.name)) walk(join(ROOT, set.name));
  }
  return found.sort();
}

/** Loads every document of a file with `load`, returning formatted errors. */
function loadFile<T>(
  path: string,
  load: (v: Parameters<typeof loadPolicy>[0], where: Parameters<typeof loadPolicy>[1]) => Loaded<T>,
) {
  const file = relative(ROOT, path);
  const parsed = parseDocuments(readFileSync(path, "utf8"), file);
  const errors: LoadError[] = [...parsed.errors];
  const values: T[] = [];
  for (const doc of parsed.documents) {
    const loaded = load(doc.value, { file, document: doc.document, locate: doc.locate });
    if (loaded.ok) values.push(loaded.value);
    else errors.push(...loaded.errors);
  }
  return { values, errors: errors.map(formatLoadError), documents: parsed.documents };
}

const tests = classicTests();

describe("classic conformance files", () => {
  test("are found", () => {
    expect(tests.length).toBeGreaterThanOrEqual(150);
  });

  test("every kyverno-test.yaml loads, and so do its policies, values and user info", () => {
    const errors: string[] = [];
    let policies = 0;
    let values = 0;
    for (const path of tests) {
      const loaded = loadFile(path, loadTest);
      errors.push(...loaded.errors);
      const test: TestFile | undefined = loaded.values[0];
      if (test === undefined) continue;
      const dir = dirname(path);
      for (const p of test.policies) {
        const file = loadFile(resolve(dir, p), loadPolicy);
        errors.push(...file.errors);
        for (const doc of file.documents)
          expect(["ClusterPolicy", "Policy"]).toContain(classifyDocument(doc.value));
        policies += file.values.length;
      }
      if (test.variables !== undefined) {
        const file = loadFile(resolve(dir, test.variables), loadValues);
        errors.push(...file.errors);
        values += file.values.length;
      }
      if (test.userinfo !== undefined)
        errors.push(...loadFile(resolve(dir, test.userinfo), loadUserInfo).errors);
    }
    expect(errors).toEqual([]);
    expect(policies).toBeGreaterThanOrEqual(tests.length);
    expect(values).toBeGreaterThan(0);
  });

  test("every policy yaml beside a test is a kyverno.io ClusterPolicy/Policy that loads cleanly", () => {
    const errors: string[] = [];
    for (const path of tests) {
      const dir = dirname(dirname(path));
      for (const name of readdirSync(dir)) {
        if (!/\.ya?ml$/.test(name) || name.startsWith("artifacthub-pkg")) continue;
        const file = loadFile(join(dir, name), loadPolicy);
        errors.push(...file.errors);
        expect(file.values.length).toBeGreaterThan(0);
      }
    }
    expect(errors).toEqual([]);
  });
});
