/** Loaders of the CLI's own files: Test, Values and UserInfo. */
import type { Issue, Loaded, Where } from "../load/errors.js";
import { failed, loadWith } from "../load/loader.js";
import type { JsonObject, JsonValue } from "../policy/types.js";
import { isObject, type ObjectSchema } from "../schema/dsl.js";
import { testFile, userInfoFile, valuesFile } from "./schema.js";
import type { RequestInfo, TestFile, TestResult, UserInfoFile, ValuesFile } from "./types.js";

/** The apiVersion of the CLI's files. */
const CLI_API_VERSION = "cli.kyverno.io/v1alpha1";

/** Checks apiVersion/kind of a CLI file; a file with neither is the legacy form (a warning). */
function header(value: JsonObject, kinds: readonly string[]): { fatal: Issue[]; warnings: Issue[] } {
  const { apiVersion, kind } = value;
  const expected = kinds.join(" or ");
  if (apiVersion === undefined && kind === undefined) {
    const message = `no apiVersion and kind: add apiVersion: ${CLI_API_VERSION} and kind: ${kinds[0]}`;
    return { fatal: [], warnings: [{ code: "deprecated", path: [], message, warning: true }] };
  }
  const fatal: Issue[] = [];
  if (typeof kind !== "string" || !kinds.includes(kind)) {
    fatal.push({
      code: "unsupported-kind",
      path: ["kind"],
      message: `expected kind ${expected}, got ${JSON.stringify(kind ?? null)}`,
    });
  }
  if (apiVersion !== CLI_API_VERSION) {
    const message = `expected apiVersion ${CLI_API_VERSION}, got ${JSON.stringify(apiVersion ?? null)}`;
    fatal.push({ code: "unsupported-kind", path: ["apiVersion"], message });
  }
  return { fatal, warnings: [] };
}

function loadCli(
  value: JsonValue,
  where: Where,
  schema: ObjectSchema,
  kinds: readonly string[],
): Loaded<JsonObject> {
  if (!isObject(value))
    return failed(where, [{ code: "wrong-type", path: [], message: `expected a ${kinds[0]} object` }]);
  const { fatal, warnings } = header(value, kinds);
  if (fatal.length > 0) return failed(where, fatal);
  return loadWith(schema, value, where, { raw: () => warnings });
}

/**
 * Validates a `kyverno-test.yaml` (kind Test, `cli.kyverno.io/v1alpha1`, or the legacy file without
 * apiVersion/kind) into a `TestFile`: lists default to empty, a result's deprecated `status` fills
 * `result` and `patchedResource` fills `patchedResources`. Unknown fields are errors.
 */
export function loadTest(value: JsonValue, where: Where): Loaded<TestFile> {
  const loaded = loadCli(value, where, testFile, ["Test"]);
  if (!loaded.ok) return loaded;
  // The schema guarantees the shape of `TestFile`.
  const test = loaded.value as unknown as TestFile;
  return {
    ok: true,
    value: { ...test, results: test.results.map(normaliseResult) },
    warnings: loaded.warnings,
  };
}

function normaliseResult(r: TestResult & { status?: TestResult["result"] }): TestResult {
  const { status, ...rest } = r;
  const out: TestResult = { ...rest, result: r.result ?? status };
  if (out.patchedResources === undefined && r.patchedResource !== undefined)
    out.patchedResources = r.patchedResource;
  return out;
}

/**
 * Validates a Values file (kind `Values` or `Value`, `cli.kyverno.io/v1alpha1`, or the legacy file
 * with only `policies` / `globalValues` / `namespaceSelector`) into a `ValuesFile` with every list present.
 */
export function loadValues(value: JsonValue, where: Where): Loaded<ValuesFile> {
  const loaded = loadCli(value, where, valuesFile, ["Values", "Value"]);
  // The schema guarantees the shape of `ValuesFile`.
  return loaded.ok
    ? { ok: true, value: loaded.value as unknown as ValuesFile, warnings: loaded.warnings }
    : loaded;
}

/** Validates a UserInfo file (kind `UserInfo`: `roles`, `clusterRoles`, `userInfo` inline) into a `UserInfoFile`. */
export function loadUserInfo(value: JsonValue, where: Where): Loaded<UserInfoFile> {
  const loaded = loadCli(value, where, userInfoFile, ["UserInfo"]);
  if (!loaded.ok) return loaded;
  // The schema guarantees these fields; `roles`, `clusterRoles` and `userInfo` have defaults.
  const { roles, clusterRoles, userInfo, ...rest } = loaded.value as unknown as Omit<
    UserInfoFile,
    "requestInfo"
  > &
    RequestInfo;
  return {
    ok: true,
    value: { ...rest, requestInfo: { roles, clusterRoles, userInfo } },
    warnings: loaded.warnings,
  };
}
