/**
 * CEL policies in `apply` and `test`: compiling the policies.kyverno.io kinds and Kubernetes
 * admission policies once with the CEL engine (PolicyExceptions bound at compile time), and the data
 * CEL's `resource` / `http` / `globalContext` libraries read, answered from the test's context file,
 * its resources and its mocked API responses, as upstream's CLI mocks them.
 */
import type {
  AdmissionPolicyBinding,
  ApiCallResponse,
  CelPolicyException,
  GlobalContextEntryMock,
  JsonValue,
  KubeObject,
} from "@kyverno-ts/api";
import type {
  CelEngine,
  CelEnginePolicy,
  CompiledCelPolicy,
  ContextLoader,
  Jmespath,
  KubeResourceCall,
  LoadResult,
} from "@kyverno-ts/engine";
import type { InputProblem, InputResult } from "../load/files.js";
import { InputMessages } from "../output/messages.js";

/** A CEL policy with the file it was loaded from. */
export interface SourcedCelPolicy {
  policy: CelEnginePolicy;
  file: string;
  document: number;
}

/** Compiles CEL policies; compile issues are input problems naming the file, policy and field. */
export function compileCelPolicies(
  engine: CelEngine,
  policies: readonly SourcedCelPolicy[],
  exceptions: readonly CelPolicyException[],
  bindings: readonly AdmissionPolicyBinding[],
): InputResult<CompiledCelPolicy[]> {
  const compiled: CompiledCelPolicy[] = [];
  const problems: InputProblem[] = [];
  for (const p of policies) {
    const own = bindings.filter((b) => b.spec.policyName === p.policy.metadata.name);
    const result = engine.compile(p.policy, { exceptions, bindings: own });
    if (result.ok) {
      compiled.push(result.policy);
      continue;
    }
    for (const issue of result.issues) {
      problems.push({
        code: "invalid-value",
        file: p.file,
        document: p.document,
        path: issue.path,
        message: InputMessages.compileIssue(p.policy.metadata.name, issue.message),
      });
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: compiled };
}

/** Upstream's guess of a kind's resource name (`Pod` → `pods`, `Ingress` → `ingresses`). */
function plural(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower === "endpoints") return lower;
  if (/(s|x|ch|sh)$/.test(lower)) return `${lower}es`;
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}

function matchesCall(o: KubeObject, call: KubeResourceCall): boolean {
  if (o.apiVersion !== call.apiVersion) return false;
  if (plural(o.kind ?? "") !== call.resource) return false;
  return call.namespace === "" || (o.metadata?.namespace ?? "") === call.namespace;
}

function copy(o: KubeObject): JsonValue {
  return structuredClone(o) as unknown as JsonValue;
}

/** What the CEL data libraries answer from. */
export interface CelData {
  /** Objects of the context file and the test's resources, for `resource.Get` / `List`. */
  resources: readonly KubeObject[];
  /** Mocked HTTP responses, for `http.Get` / `Post`. */
  apiCallResponses?: readonly ApiCallResponse[];
  /** Mocked global context entries, for `globalContext.Get`: the root and the named projections. */
  globalContext?: ReadonlyMap<string, { root: JsonValue; projections: ReadonlyMap<string, JsonValue> }>;
  /** Image metadata by reference, for `image.GetMetadata`. */
  images?: ReadonlyArray<{ [key: string]: JsonValue }>;
}

/** The loader methods of the CEL libraries, over the test's data (added to the classic loader). */
export function celDataLoader(
  data: CelData,
): Pick<ContextLoader, "kubeResource" | "apiCall" | "globalReference" | "globalContext" | "imageRegistry"> {
  return {
    imageRegistry(reference): LoadResult {
      const found = (data.images ?? []).find((m) => m.image === reference);
      return found === undefined
        ? { ok: false, error: `no metadata for image ${reference} in the context` }
        : { ok: true, value: found };
    },
    kubeResource(call): LoadResult {
      const found = data.resources.filter((o) => matchesCall(o, call));
      if (call.verb === "get") {
        const one = found.find((o) => (o.metadata?.name ?? "") === call.name);
        return one
          ? { ok: true, value: copy(one) }
          : { ok: false, error: `${call.resource} "${call.name ?? ""}" not found` };
      }
      if (call.verb === "list") {
        const labels = call.labels ?? {};
        const items = found.filter((o) =>
          Object.entries(labels).every(([k, v]) => o.metadata?.labels?.[k] === v),
        );
        return { ok: true, value: { items: items.map(copy) } };
      }
      return { ok: true, value: call.data ?? null };
    },
    apiCall(call): LoadResult {
      const url = call.url ?? call.urlPath ?? "";
      const mock = (data.apiCallResponses ?? []).find(
        (r) => r.url === url && (r.method ?? "GET").toUpperCase() === call.method.toUpperCase(),
      );
      if (mock === undefined) return { ok: false, error: `no mocked response for ${call.method} ${url}` };
      return { ok: true, value: mock.response.body ?? null };
    },
    globalReference(name): LoadResult {
      const entry = data.globalContext?.get(name);
      return entry === undefined
        ? { ok: false, error: `global context entry ${name} not found` }
        : { ok: true, value: entry.root };
    },
    globalContext(name, projection): LoadResult {
      const entry = data.globalContext?.get(name);
      if (entry === undefined) return { ok: false, error: `global context entry ${name} not found` };
      const value = entry.projections.get(projection);
      return value === undefined
        ? { ok: false, error: `global context entry ${name} has no projection ${projection}` }
        : { ok: true, value };
    },
  };
}

/**
 * The mocked global context entries of a test (`globalContextEntries`): the root (`data`, or the
 * objects of `resources` and their files), narrowed by `fieldPath`, and each projection's value,
 * both JMESPath as upstream evaluates them.
 */
export function globalContextOf(
  entries: readonly GlobalContextEntryMock[],
  files: (entry: GlobalContextEntryMock) => readonly KubeObject[],
  jp: Jmespath,
): Map<string, { root: JsonValue; projections: Map<string, JsonValue> }> {
  const out = new Map<string, { root: JsonValue; projections: Map<string, JsonValue> }>();
  for (const entry of entries) {
    let root: JsonValue =
      entry.data !== undefined
        ? entry.data
        : ([...(entry.resources ?? []), ...files(entry)] as unknown as JsonValue[]);
    if (entry.fieldPath !== undefined && entry.fieldPath !== "") {
      const narrowed = jp.search(entry.fieldPath, root);
      root = narrowed.ok ? narrowed.value : null;
    }
    const projections = new Map<string, JsonValue>();
    for (const p of entry.projections ?? []) {
      const found = jp.search(p.path, root);
      if (found.ok) projections.set(p.name, found.value);
    }
    out.set(entry.name, { root, projections });
  }
  return out;
}
