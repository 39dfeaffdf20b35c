/**
 * UpdateRequests (`kyverno.io/v2`, upstream's CRD): the durable queue between the admission controller
 * and the background controller. One UpdateRequest per (request type, policy, trigger): its name is a
 * digest of that identity, so however many admission requests touch one trigger, at most one
 * UpdateRequest per policy exists for it (a second create answers `AlreadyExists`). The rules to apply
 * are listed in `spec.ruleContext`, as upstream's admission controller writes them.
 */
import { createHash } from "node:crypto";
import type { KubeObject } from "@kyverno-ts/api";
import type { UserInfo } from "@kyverno-ts/engine";

/** API version and kind of UpdateRequests. */
export const UR_API_VERSION = "kyverno.io/v2";
export const UR_KIND = "UpdateRequest";

/**
 * `spec.requestType` (upstream's CRD enum): a generate or a mutate-existing request of a ClusterPolicy /
 * Policy, `cel-generate` of a GeneratingPolicy / NamespacedGeneratingPolicy, `cel-mutate` of a
 * mutate-existing MutatingPolicy / NamespacedMutatingPolicy.
 */
export type RequestType = "generate" | "mutate" | "cel-generate" | "cel-mutate";

const REQUEST_TYPES: ReadonlySet<string> = new Set<RequestType>([
  "generate",
  "mutate",
  "cel-generate",
  "cel-mutate",
]);

/** Whether a request type is a CEL policy's (its `spec.policy` names a `policies.kyverno.io` policy). */
export const isCelRequestType = (type: RequestType): type is "cel-generate" | "cel-mutate" =>
  type === "cel-generate" || type === "cel-mutate";

/** `status.state`, upstream's four values. */
export type UpdateRequestState = "Pending" | "Completed" | "Failed" | "Skip";

/** The trigger resource an UpdateRequest is about (`spec.resource`, `ruleContext[].trigger`). */
export interface TriggerRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
}

/** One rule of an UpdateRequest (`spec.ruleContext[]`). */
export interface RuleContext {
  rule: string;
  trigger: TriggerRef;
  /** The trigger is gone (or no longer matches): delete what the rule generated for it. */
  deleteDownstream: boolean;
  synchronize?: boolean;
}

/** `spec` of an UpdateRequest. */
export interface UpdateRequestSpec {
  requestType: RequestType;
  /**
   * The policy's cache key: `name` of a ClusterPolicy or GeneratingPolicy, `namespace/name` of a
   * Policy or NamespacedGeneratingPolicy (the request type tells which).
   */
  policy: string;
  /** The first rule (upstream's deprecated single-rule field, kept for `kubectl get ur`'s columns). */
  rule: string;
  resource: TriggerRef;
  ruleContext: RuleContext[];
  deleteDownstream: boolean;
  synchronize?: boolean;
  context: {
    userInfo?: { userInfo?: UserInfo; roles?: string[]; clusterRoles?: string[] };
    admissionRequestInfo?: { operation?: string };
  };
}

/** `status` of an UpdateRequest. */
export interface UpdateRequestStatus {
  state: UpdateRequestState;
  message?: string;
  retryCount?: number;
  generatedResources?: Array<{ apiVersion: string; kind: string; namespace?: string; name: string }>;
}

/** An UpdateRequest object. */
export interface UpdateRequest {
  apiVersion: typeof UR_API_VERSION;
  kind: typeof UR_KIND;
  metadata: {
    name: string;
    namespace: string;
    labels?: Record<string, string>;
    resourceVersion?: string;
    uid?: string;
    creationTimestamp?: string;
  };
  spec: UpdateRequestSpec;
  status?: UpdateRequestStatus;
}

/** What the admission controller (or the background controller itself) asks for. */
export interface UpdateRequestIntent {
  requestType: RequestType;
  policy: string;
  trigger: TriggerRef;
  rules: readonly string[];
  deleteDownstream: boolean;
  synchronize?: boolean;
  userInfo?: UserInfo;
  roles?: string[];
  clusterRoles?: string[];
  operation?: string;
}

/**
 * The identity two intents for the same work share (dedupe key): the trigger by kind, namespace and
 * name, not uid (a CREATE's object may have no uid yet where the UPDATE after it has one).
 */
export function intentKey(i: UpdateRequestIntent): string {
  const t = i.trigger;
  const who = `${t.apiVersion}/${t.kind}/${t.namespace}/${t.name}`;
  return `${i.requestType}\u0000${i.policy}\u0000${who}\u0000${i.deleteDownstream ? "delete" : "apply"}`;
}

/** The UpdateRequest name of an intent: `ur-` and a digest of its identity (at most one per identity). */
export function updateRequestName(i: UpdateRequestIntent): string {
  return `ur-${createHash("sha256").update(intentKey(i)).digest("hex").slice(0, 20)}`;
}

/** Label values are at most 63 characters of `[A-Za-z0-9_.-]`; longer or other text is cut or dropped. */
function labelValue(value: string): string {
  const cleaned = value.replace(/[^A-Za-z0-9_.-]/g, "-").slice(0, 63);
  return cleaned.replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, "");
}

/** The UpdateRequest object for an intent, in Kyverno's namespace. */
export function updateRequestFor(intent: UpdateRequestIntent, namespace: string): UpdateRequest {
  const policyName = intent.policy.includes("/") ? (intent.policy.split("/")[1] ?? "") : intent.policy;
  const rules = intent.rules.map(
    (rule): RuleContext => ({
      rule,
      trigger: intent.trigger,
      deleteDownstream: intent.deleteDownstream,
      ...(intent.synchronize !== undefined ? { synchronize: intent.synchronize } : {}),
    }),
  );
  return {
    apiVersion: UR_API_VERSION,
    kind: UR_KIND,
    metadata: {
      name: updateRequestName(intent),
      namespace,
      labels: {
        "generate.kyverno.io/policy-name": labelValue(policyName),
        "generate.kyverno.io/resource-kind": labelValue(intent.trigger.kind),
        "generate.kyverno.io/resource-namespace": labelValue(intent.trigger.namespace),
        "generate.kyverno.io/resource-name": labelValue(intent.trigger.name),
      },
    },
    spec: {
      requestType: intent.requestType,
      policy: intent.policy,
      rule: intent.rules[0] ?? "",
      resource: intent.trigger,
      ruleContext: rules,
      deleteDownstream: intent.deleteDownstream,
      ...(intent.synchronize !== undefined ? { synchronize: intent.synchronize } : {}),
      context: {
        userInfo: {
          ...(intent.userInfo ? { userInfo: intent.userInfo } : {}),
          roles: intent.roles ?? [],
          clusterRoles: intent.clusterRoles ?? [],
        },
        admissionRequestInfo: intent.operation ? { operation: intent.operation } : {},
      },
    },
  };
}

/** Reads an object as an UpdateRequest; undefined when it is not one this controller can process. */
export function asUpdateRequest(object: KubeObject | undefined): UpdateRequest | undefined {
  if (object === undefined || object.kind !== UR_KIND) return undefined;
  const spec = object.spec as Partial<UpdateRequestSpec> | undefined;
  if (spec === undefined || typeof spec.policy !== "string") return undefined;
  if (typeof spec.requestType !== "string" || !REQUEST_TYPES.has(spec.requestType)) return undefined;
  return object as unknown as UpdateRequest;
}

/** The rules of an UpdateRequest: `ruleContext`, or the single `rule` / `resource` of older writers. */
export function rulesOf(ur: UpdateRequest): RuleContext[] {
  if (ur.spec.ruleContext !== undefined && ur.spec.ruleContext.length > 0) return ur.spec.ruleContext;
  return [{ rule: ur.spec.rule, trigger: ur.spec.resource, deleteDownstream: ur.spec.deleteDownstream }];
}

/** A GeneratingPolicy's evaluation settings (`spec.evaluation`), with upstream's defaults (all off). */
export interface GeneratingSettings {
  synchronize: boolean;
  orphanDownstreamOnPolicyDelete: boolean;
  generateExisting: boolean;
}

/** Reads `spec.evaluation` of a GeneratingPolicy / NamespacedGeneratingPolicy. */
export function generatingSettings(policy: { spec?: unknown }): GeneratingSettings {
  const evaluation = (policy.spec as { evaluation?: Record<string, { enabled?: boolean } | undefined> })
    ?.evaluation;
  return {
    synchronize: evaluation?.synchronize?.enabled ?? false,
    orphanDownstreamOnPolicyDelete: evaluation?.orphanDownstreamOnPolicyDelete?.enabled ?? false,
    generateExisting: evaluation?.generateExisting?.enabled ?? false,
  };
}

/** `spec.policy` of a `cel-generate` or `cel-mutate` UpdateRequest: `name`, or `namespace/name` when namespaced. */
export function celPolicyRef(policy: { name: string; namespace: string | undefined }): string {
  return policy.namespace === undefined ? policy.name : `${policy.namespace}/${policy.name}`;
}

/** The kinds of policy a CEL request type names, cluster-wide and namespaced. */
const CEL_KINDS = {
  "cel-generate": ["GeneratingPolicy", "NamespacedGeneratingPolicy"],
  "cel-mutate": ["MutatingPolicy", "NamespacedMutatingPolicy"],
} as const;

/** The policy kind of a CEL UpdateRequest's `spec.policy` (`namespace/name` is the namespaced kind). */
export function celPolicyKindOf(type: "cel-generate" | "cel-mutate", ref: string): string {
  const [cluster, namespaced] = CEL_KINDS[type];
  return ref.includes("/") ? namespaced : cluster;
}

/** The CEL policy store key (`celPolicyKey`) of a CEL UpdateRequest's `spec.policy`. */
export function celRequestPolicyKey(type: "cel-generate" | "cel-mutate", ref: string): string {
  return `${celPolicyKindOf(type, ref)}/${ref}`;
}
