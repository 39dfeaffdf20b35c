/**
 * Protobuf schemas of the kinds of the named API groups kubectl's generators create (apps, batch,
 * rbac, scheduling, policy, networking; k8s.io/api/<group>/<version>/generated.proto).
 */
import { LOAD_BALANCER_INGRESS } from "./protobuf-core.js";
import { CONDITION, DELETE_OPTIONS, LABEL_SELECTOR, metadata, OBJECT_REFERENCE } from "./protobuf-meta.js";
import { POD_TEMPLATE_SPEC } from "./protobuf-pod.js";
import {
  bool,
  bytes,
  i32,
  i64,
  inline,
  intOrString,
  map,
  msg,
  type Schema,
  str,
  time,
} from "./protobuf-schema.js";

const selector = msg("selector", () => LABEL_SELECTOR);
const template = msg("template", () => POD_TEMPLATE_SPEC);

const DEPLOYMENT_SPEC: Schema = {
  1: i32("replicas", "keep"),
  2: selector,
  3: template,
  4: msg("strategy", () => ({
    1: str("type"),
    2: msg("rollingUpdate", () => ({ 1: intOrString("maxUnavailable"), 2: intOrString("maxSurge") })),
  })),
  5: i32("minReadySeconds"),
  6: i32("revisionHistoryLimit", "keep"),
  7: bool("paused"),
  9: i32("progressDeadlineSeconds", "keep"),
};
const DEPLOYMENT_STATUS: Schema = {
  1: i64("observedGeneration"),
  2: i32("replicas"),
  3: i32("updatedReplicas"),
  4: i32("availableReplicas"),
  5: i32("unavailableReplicas"),
  7: i32("readyReplicas"),
  8: i32("collisionCount", "keep"),
};

const POD_FAILURE_POLICY: Schema = {
  1: msg(
    "rules",
    () => ({
      1: str("action", "keep"),
      2: msg("onExitCodes", () => ({
        1: str("containerName", "keep"),
        2: str("operator", "keep"),
        3: i32("values", "list", "null"),
      })),
      3: msg("onPodConditions", () => ({ 1: str("type", "keep"), 2: str("status", "keep") }), "list"),
    }),
    "list",
    "null",
  ),
};
const JOB_SPEC: Schema = {
  1: i32("parallelism", "keep"),
  2: i32("completions", "keep"),
  3: i64("activeDeadlineSeconds", "keep"),
  4: selector,
  5: bool("manualSelector", "keep"),
  6: template,
  7: i32("backoffLimit", "keep"),
  8: i32("ttlSecondsAfterFinished", "keep"),
  9: str("completionMode", "keep"),
  10: bool("suspend", "keep"),
  11: msg("podFailurePolicy", () => POD_FAILURE_POLICY),
  12: i32("backoffLimitPerIndex", "keep"),
  13: i32("maxFailedIndexes", "keep"),
  14: str("podReplacementPolicy", "keep"),
  15: str("managedBy", "keep"),
};
const JOB_STATUS: Schema = {
  2: time("startTime"),
  3: time("completionTime"),
  4: i32("active"),
  5: i32("succeeded"),
  6: i32("failed"),
  7: str("completedIndexes"),
  9: i32("ready", "keep"),
  10: str("failedIndexes", "keep"),
  11: i32("terminating", "keep"),
};
const CRON_JOB_SPEC: Schema = {
  1: str("schedule", "keep"),
  2: i64("startingDeadlineSeconds", "keep"),
  3: str("concurrencyPolicy"),
  4: bool("suspend", "keep"),
  5: msg("jobTemplate", () => ({ 1: metadata, 2: msg("spec", () => JOB_SPEC) })),
  6: i32("successfulJobsHistoryLimit", "keep"),
  7: i32("failedJobsHistoryLimit", "keep"),
  8: str("timeZone", "keep"),
};

const POLICY_RULE: Schema = {
  1: str("verbs", "list", "null"),
  2: str("apiGroups", "list"),
  3: str("resources", "list"),
  4: str("resourceNames", "list"),
  5: str("nonResourceURLs", "list"),
};
const rules = msg("rules", () => POLICY_RULE, "list", "null");
const SUBJECT: Schema = {
  1: str("kind", "keep"),
  2: str("apiGroup"),
  3: str("name", "keep"),
  4: str("namespace"),
};
const ROLE_REF: Schema = { 1: str("apiGroup", "keep"), 2: str("kind", "keep"), 3: str("name", "keep") };
const BINDING: Schema = {
  1: metadata,
  2: msg("subjects", () => SUBJECT, "list"),
  3: msg("roleRef", () => ROLE_REF),
};

const INGRESS_BACKEND: Schema = {
  3: msg("resource", () => ({
    1: str("apiGroup", "keep", "null"),
    2: str("kind", "keep"),
    3: str("name", "keep"),
  })),
  4: msg("service", () => ({
    1: str("name", "keep"),
    2: msg("port", () => ({ 1: str("name"), 2: i32("number") })),
  })),
};
const HTTP_INGRESS_PATH: Schema = {
  1: str("path"),
  2: msg("backend", () => INGRESS_BACKEND),
  3: str("pathType", "keep", "null"),
};
const INGRESS_RULE: Schema = {
  1: str("host"),
  2: inline(() => ({ 1: msg("http", () => ({ 1: msg("paths", () => HTTP_INGRESS_PATH, "list", "null") })) })),
};
const INGRESS_SPEC: Schema = {
  1: msg("defaultBackend", () => INGRESS_BACKEND),
  2: msg("tls", () => ({ 1: str("hosts", "list"), 2: str("secretName") }), "list"),
  3: msg("rules", () => INGRESS_RULE, "list"),
  4: str("ingressClassName", "keep"),
};

export const GROUP_KINDS: Readonly<Record<string, Schema>> = {
  "apps/v1/Deployment": {
    1: metadata,
    2: msg("spec", () => DEPLOYMENT_SPEC),
    3: msg("status", () => DEPLOYMENT_STATUS),
  },
  "batch/v1/Job": { 1: metadata, 2: msg("spec", () => JOB_SPEC), 3: msg("status", () => JOB_STATUS) },
  "batch/v1/CronJob": {
    1: metadata,
    2: msg("spec", () => CRON_JOB_SPEC),
    3: msg("status", () => ({
      1: msg("active", () => OBJECT_REFERENCE, "list"),
      4: time("lastScheduleTime"),
      5: time("lastSuccessfulTime"),
    })),
  },
  "rbac.authorization.k8s.io/v1/Role": { 1: metadata, 2: rules },
  "rbac.authorization.k8s.io/v1/ClusterRole": {
    1: metadata,
    2: rules,
    3: msg("aggregationRule", () => ({ 1: msg("clusterRoleSelectors", () => LABEL_SELECTOR, "list") })),
  },
  "rbac.authorization.k8s.io/v1/RoleBinding": BINDING,
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": BINDING,
  "scheduling.k8s.io/v1/PriorityClass": {
    1: metadata,
    2: i32("value", "keep"),
    3: bool("globalDefault"),
    4: str("description"),
    5: str("preemptionPolicy", "keep"),
  },
  "policy/v1/PodDisruptionBudget": {
    1: metadata,
    2: msg("spec", () => ({
      1: intOrString("minAvailable"),
      2: selector,
      3: intOrString("maxUnavailable"),
      4: str("unhealthyPodEvictionPolicy", "keep"),
    })),
    3: msg("status", () => ({
      1: i64("observedGeneration"),
      2: map("disruptedPods", "time"),
      3: i32("disruptionsAllowed", "keep"),
      4: i32("currentHealthy", "keep"),
      5: i32("desiredHealthy", "keep"),
      6: i32("expectedPods", "keep"),
      7: msg("conditions", () => CONDITION, "list"),
    })),
  },
  // `kubectl drain` evicts each Pod with a policy/v1 Eviction.
  "policy/v1/Eviction": { 1: metadata, 2: msg("deleteOptions", () => DELETE_OPTIONS) },
  // `kubectl certificate approve|deny` sends the CSR as protobuf (extra, a map of lists, left out).
  "certificates.k8s.io/v1/CertificateSigningRequest": {
    1: metadata,
    2: msg("spec", () => ({
      1: bytes("request", "keep"),
      2: str("username"),
      3: str("uid"),
      4: str("groups", "list"),
      5: str("usages", "list"),
      7: str("signerName", "keep"),
      8: i32("expirationSeconds", "keep"),
    })),
    3: msg("status", () => ({
      1: msg(
        "conditions",
        () => ({
          1: str("type", "keep"),
          2: str("reason"),
          3: str("message"),
          4: time("lastUpdateTime"),
          5: time("lastTransitionTime"),
          6: str("status", "keep"),
        }),
        "list",
      ),
      2: bytes("certificate"),
    })),
  },
  "networking.k8s.io/v1/Ingress": {
    1: metadata,
    2: msg("spec", () => INGRESS_SPEC),
    3: msg("status", () => ({
      1: msg("loadBalancer", () => ({ 1: msg("ingress", () => LOAD_BALANCER_INGRESS, "list") })),
    })),
  },
};
