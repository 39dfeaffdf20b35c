/**
 * What the playground sets up, as data: the namespaces, the users, the bundled policies with the
 * production namespace switched to Enforce, and the example manifests in the order they are applied
 * (and by whom). Reading files is the only I/O here; applying is `playground.ts`'s job.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { type JsonObject, type JsonValue, parseDocuments } from "@kyverno-ts/api";

/** The repository's `policies/` and `examples/` folders (from `packages/cli/{src,dist}/playground`). */
export const BUNDLED_DIRS = {
  policies: fileURLToPath(new URL("../../../../policies/", import.meta.url)),
  examples: fileURLToPath(new URL("../../../../examples/", import.meta.url)),
} as const;

/** Argo CD's application controller: the only identity allowed to change the critical namespaces. */
export const ARGOCD_USER = "system:serviceaccount:argocd:argocd-application-controller";

/** The namespace whose requests are blocked (Enforce); everywhere else policies audit. */
export const ENFORCED_NAMESPACE = "production";

/** Who applies a manifest: a developer at the keyboard, or Argo CD syncing from Git. */
export type Actor = "admin" | "argocd";

/** One manifest applied by one actor. */
export interface ExampleStep {
  /** Path shown to the user, relative to the examples folder's parent (`examples/staging/x.yaml`). */
  file: string;
  object: JsonObject;
  actor: Actor;
}

/** Everything the playground installs and applies. */
export interface Scenario {
  namespaces: JsonObject[];
  policies: JsonObject[];
  steps: ExampleStep[];
}

/** Thrown when a bundled file cannot be read or parsed; names the file. */
export class ScenarioError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ScenarioError";
  }
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      // tests/: kyverno-test.yaml files; helm/: values files of the charts (not manifests).
      if (entry.isDirectory()) return entry.name === "tests" || entry.name === "helm" ? [] : yamlFiles(path);
      return /\.ya?ml$/.test(entry.name) ? [path] : [];
    })
    .sort();
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function objectsOf(path: string, shownAs: string): JsonObject[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ScenarioError(`${shownAs}: ${(error as Error).message}`);
  }
  const parsed = parseDocuments(text, shownAs);
  const first = parsed.errors[0];
  if (first !== undefined)
    throw new ScenarioError(`${shownAs} (document ${(first.document ?? 0) + 1}): ${first.message}`);
  return parsed.documents.map((d) => d.value).filter(isObject);
}

/**
 * A bundled policy as the playground installs it: unchanged, plus a failure action override that
 * enforces it in the production namespace (upstream's `validationFailureActionOverrides`), so one
 * cluster shows both modes (staging audits, production blocks), and `emitWarning` so that kubectl
 * prints audited violations when a manifest is applied.
 */
export function asPlaygroundPolicy(policy: JsonObject): JsonObject {
  const spec = isObject(policy.spec) ? policy.spec : {};
  return {
    ...policy,
    spec: {
      ...spec,
      emitWarning: true,
      validationFailureActionOverrides: [{ action: "Enforce", namespaces: [ENFORCED_NAMESPACE] }],
    },
  };
}

function namespace(name: string, environment: string): JsonObject {
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name, labels: { "kubernetes.io/metadata.name": name, environment } },
  };
}

/**
 * Reads the bundled policies and examples. Production manifests are applied twice: first by hand
 * (blocked: production only changes through Argo CD, and is enforced), then as Argo CD's sync.
 */
export function loadScenario(dirs: { policies: string; examples: string } = BUNDLED_DIRS): Scenario {
  const root = join(dirs.examples, "..");
  const shown = (path: string) => relative(root, path);
  const policies = yamlFiles(dirs.policies)
    .flatMap((path) => objectsOf(path, shown(path)))
    .filter((o) => o.kind === "ClusterPolicy" || o.kind === "Policy")
    .map(asPlaygroundPolicy);
  if (policies.length === 0) throw new ScenarioError(`${shown(dirs.policies)}: no policies found`);
  const audited: ExampleStep[] = [];
  const enforced: ExampleStep[] = [];
  for (const path of yamlFiles(dirs.examples)) {
    for (const object of objectsOf(path, shown(path))) {
      // Policies among the examples (examples/background: a generate rule) are installed as they are.
      if (object.kind === "ClusterPolicy" || object.kind === "Policy") {
        policies.push(object);
        continue;
      }
      const meta = isObject(object.metadata) ? object.metadata : {};
      const file = shown(path);
      if (meta.namespace !== ENFORCED_NAMESPACE) audited.push({ file, object, actor: "admin" });
      else enforced.push({ file, object, actor: "admin" }, { file, object, actor: "argocd" });
    }
  }
  // Audited namespaces first, then production: by hand (blocked), then through Argo CD.
  const steps = [
    ...audited,
    ...enforced.filter((s) => s.actor === "admin"),
    ...enforced.filter((s) => s.actor === "argocd"),
  ];
  return {
    namespaces: [
      namespace("kyverno", "system"),
      namespace("argocd", "system"),
      namespace("staging", "staging"),
      namespace(ENFORCED_NAMESPACE, "production"),
    ],
    policies,
    steps,
  };
}
