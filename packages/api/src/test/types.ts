/**
 * Wire types of the kyverno CLI's own files (`cli.kyverno.io/v1alpha1`): Test (`kyverno-test.yaml`),
 * Values (the `variables` file) and UserInfo. Lists are always present (empty when not given).
 */
import type { JsonValue, KubeObject, ObjectMeta } from "../policy/types.js";

/** A result as written in a test or report: what a rule did to a resource. */
export type PolicyResult = "pass" | "fail" | "warn" | "error" | "skip";

/** Values for one resource, by resource name. */
export interface ValuesResource {
  name: string;
  values: Record<string, JsonValue>;
}

/** Values for one rule: plain values, and per-iteration values for `foreach` (one list item per element). */
export interface ValuesRule {
  name: string;
  values: Record<string, JsonValue>;
  foreachValues: Record<string, JsonValue[]>;
}

/** Values for one policy, per resource and per rule. */
export interface ValuesPolicy {
  name: string;
  resources: ValuesResource[];
  rules: ValuesRule[];
}

/** Labels of a namespace, for `namespaceSelector` matching without a cluster. */
export interface NamespaceSelectorValues {
  name: string;
  labels: Record<string, string>;
}

/** An API resource as in discovery (`metav1.APIResource`), used to describe subresources. */
export interface ApiResource {
  name: string;
  kind: string;
  singularName?: string;
  namespaced?: boolean;
  group?: string;
  version?: string;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

/** A subresource and its parent, so `Kind/subresource` matching works without a cluster. */
export interface SubresourceValues {
  subresource: ApiResource;
  parentResource: ApiResource;
}

/** The content of a Values file, also inline as a test's `values`. */
export interface ValuesSpec {
  globalValues: Record<string, JsonValue>;
  policies: ValuesPolicy[];
  namespaceSelector: NamespaceSelectorValues[];
  namespaces: KubeObject[];
  subresources: SubresourceValues[];
}

/** A Values file: kind `Values` (or `Value`), or the legacy file without apiVersion/kind. */
export interface ValuesFile extends ValuesSpec {
  apiVersion?: string;
  kind?: "Values" | "Value";
  metadata?: ObjectMeta;
}

/** Who makes the admission request in a CLI run. */
export interface RequestInfo {
  roles: string[];
  clusterRoles: string[];
  userInfo: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
}

/** A UserInfo file (`roles`, `clusterRoles`, `userInfo` inline), grouped as `requestInfo`. */
export interface UserInfoFile {
  apiVersion?: string;
  kind?: "UserInfo";
  metadata?: ObjectMeta;
  requestInfo: RequestInfo;
}

/** Group/version/kind/namespace/name of the resource a result is about (alternative to `resources`). */
export interface TestResourceSpec {
  group?: string;
  version?: string;
  kind?: string;
  namespace?: string;
  name?: string;
}

/** One expected result of a test. `result` is filled from the deprecated `status` when only that is given. */
export interface TestResult {
  policy: string;
  /** The rule; usually absent for the CEL policy kinds, which have none. */
  rule?: string;
  result: PolicyResult;
  kind?: string;
  /** Resource names, or `namespace/name`. */
  resources: string[];
  /** Deprecated single resource name; use `resources`. */
  resource?: string;
  /** Deprecated namespace of `resource`. */
  namespace?: string;
  patchedResources?: string;
  /** Deprecated spelling of `patchedResources`. */
  patchedResource?: string;
  generatedResource?: string;
  cloneSourceResource?: string;
  resourceSpec?: TestResourceSpec;
  isValidatingAdmissionPolicy?: boolean;
  isMutatingAdmissionPolicy?: boolean;
  isValidatingPolicy?: boolean;
  isMutatingPolicy?: boolean;
  isGeneratingPolicy?: boolean;
  isDeletingPolicy?: boolean;
  isImageValidatingPolicy?: boolean;
}

/** A kyverno-json style check on the engine responses (`match` selects them, `assert`/`error` are trees). */
export interface TestCheck {
  match: { resource?: JsonValue; policy?: JsonValue; rule?: JsonValue };
  assert?: JsonValue;
  error?: JsonValue;
}

/** A mocked response of an HTTP call made by `apiCall` context entries or CEL `http`. */
export interface ApiCallResponse {
  url: string;
  method?: string;
  response: { statusCode?: number; body?: JsonValue };
}

/** Mocked data of a GlobalContextEntry: exactly one of `data`, `resources`, `resourceFiles`. */
export interface GlobalContextEntryMock {
  name: string;
  data?: JsonValue;
  resources?: KubeObject[];
  resourceFiles?: string[];
  fieldPath?: string;
  projections?: Array<{ name: string; path: string }>;
}

/** A `kyverno-test.yaml` (kind Test). File paths are relative to the test file. */
export interface TestFile {
  apiVersion?: string;
  kind?: "Test";
  metadata?: ObjectMeta;
  /** Deprecated; use `metadata.name`. */
  name?: string;
  policies: string[];
  resources: string[];
  targetResources: string[];
  /** Files of objects that exist in the cluster (clone sources for generate rules). */
  clusterResources: string[];
  exceptions: string[];
  /** Path of a Values file. */
  variables?: string;
  /** Path of a UserInfo file. */
  userinfo?: string;
  /** Path of a context file (CEL policy kinds). */
  context?: string;
  /** Inline values, as in a Values file. */
  values?: ValuesSpec;
  results: TestResult[];
  checks: TestCheck[];
  apiCallResponses: ApiCallResponse[];
  globalContextEntries: GlobalContextEntryMock[];
}
