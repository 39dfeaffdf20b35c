/**
 * Protobuf schemas of core/v1 PodTemplateSpec, PodSpec and what they contain (k8s.io/api/core/v1/generated.proto).
 * Not decoded (skipped): ephemeral containers, pod resource claims, in-tree cloud volume sources.
 */
import { LABEL_SELECTOR, LOCAL_OBJECT_REFERENCE, metadata } from "./protobuf-meta.js";
import {
  bool,
  i32,
  i64,
  inline,
  intOrString,
  map,
  msg,
  quantity,
  type Schema,
  str,
} from "./protobuf-schema.js";

const localRef = inline(() => LOCAL_OBJECT_REFERENCE);

const OBJECT_FIELD_SELECTOR: Schema = { 1: str("apiVersion"), 2: str("fieldPath", "keep") };
const RESOURCE_FIELD_SELECTOR: Schema = {
  1: str("containerName"),
  2: str("resource", "keep"),
  3: quantity("divisor"),
};
const KEY_SELECTOR: Schema = { 1: localRef, 2: str("key", "keep"), 3: bool("optional", "keep") };
const ENV_VAR_SOURCE: Schema = {
  1: msg("fieldRef", () => OBJECT_FIELD_SELECTOR),
  2: msg("resourceFieldRef", () => RESOURCE_FIELD_SELECTOR),
  3: msg("configMapKeyRef", () => KEY_SELECTOR),
  4: msg("secretKeyRef", () => KEY_SELECTOR),
};
const ENV_VAR: Schema = {
  1: str("name", "keep"),
  2: str("value"),
  3: msg("valueFrom", () => ENV_VAR_SOURCE),
};
const ENV_SOURCE: Schema = { 1: localRef, 2: bool("optional", "keep") };
const ENV_FROM_SOURCE: Schema = {
  1: str("prefix"),
  2: msg("configMapRef", () => ENV_SOURCE),
  3: msg("secretRef", () => ENV_SOURCE),
};

const CONTAINER_PORT: Schema = {
  1: str("name"),
  2: i32("hostPort"),
  3: i32("containerPort", "keep"),
  4: str("protocol"),
  5: str("hostIP"),
};
const RESOURCE_REQUIREMENTS: Schema = {
  1: map("limits", "quantity"),
  2: map("requests", "quantity"),
  3: msg("claims", () => ({ 1: str("name", "keep"), 2: str("request") }), "list"),
};
const VOLUME_MOUNT: Schema = {
  1: str("name", "keep"),
  2: bool("readOnly"),
  3: str("mountPath", "keep"),
  4: str("subPath"),
  5: str("mountPropagation", "keep"),
  6: str("subPathExpr"),
  7: str("recursiveReadOnly", "keep"),
};

const HTTP_GET: Schema = {
  1: str("path"),
  2: intOrString("port"),
  3: str("host"),
  4: str("scheme"),
  5: msg("httpHeaders", () => ({ 1: str("name", "keep"), 2: str("value", "keep") }), "list"),
};
const EXEC = msg("exec", () => ({ 1: str("command", "list") }));
const TCP_SOCKET = msg("tcpSocket", () => ({ 1: intOrString("port"), 2: str("host") }));
const PROBE_HANDLER: Schema = {
  1: EXEC,
  2: msg("httpGet", () => HTTP_GET),
  3: TCP_SOCKET,
  4: msg("grpc", () => ({ 1: i32("port", "keep"), 2: str("service", "keep", "null") })),
};
const PROBE: Schema = {
  1: inline(() => PROBE_HANDLER),
  2: i32("initialDelaySeconds"),
  3: i32("timeoutSeconds"),
  4: i32("periodSeconds"),
  5: i32("successThreshold"),
  6: i32("failureThreshold"),
  7: i64("terminationGracePeriodSeconds", "keep"),
};
const LIFECYCLE_HANDLER: Schema = {
  1: EXEC,
  2: msg("httpGet", () => HTTP_GET),
  3: TCP_SOCKET,
  4: msg("sleep", () => ({ 1: i64("seconds", "keep") })),
};
const LIFECYCLE: Schema = {
  1: msg("postStart", () => LIFECYCLE_HANDLER),
  2: msg("preStop", () => LIFECYCLE_HANDLER),
};

const SE_LINUX_OPTIONS: Schema = { 1: str("user"), 2: str("role"), 3: str("type"), 4: str("level") };
const WINDOWS_OPTIONS: Schema = {
  1: str("gmsaCredentialSpecName", "keep"),
  2: str("gmsaCredentialSpec", "keep"),
  3: str("runAsUserName", "keep"),
  4: bool("hostProcess", "keep"),
};
const PROFILE: Schema = { 1: str("type", "keep"), 2: str("localhostProfile", "keep") };
const SECURITY_CONTEXT: Schema = {
  1: msg("capabilities", () => ({ 1: str("add", "list"), 2: str("drop", "list") })),
  2: bool("privileged", "keep"),
  3: msg("seLinuxOptions", () => SE_LINUX_OPTIONS),
  4: i64("runAsUser", "keep"),
  5: bool("runAsNonRoot", "keep"),
  6: bool("readOnlyRootFilesystem", "keep"),
  7: bool("allowPrivilegeEscalation", "keep"),
  8: i64("runAsGroup", "keep"),
  9: str("procMount", "keep"),
  10: msg("windowsOptions", () => WINDOWS_OPTIONS),
  11: msg("seccompProfile", () => PROFILE),
  12: msg("appArmorProfile", () => PROFILE),
};
const POD_SECURITY_CONTEXT: Schema = {
  1: msg("seLinuxOptions", () => SE_LINUX_OPTIONS),
  2: i64("runAsUser", "keep"),
  3: bool("runAsNonRoot", "keep"),
  4: i64("supplementalGroups", "list"),
  5: i64("fsGroup", "keep"),
  6: i64("runAsGroup", "keep"),
  7: msg("sysctls", () => ({ 1: str("name", "keep"), 2: str("value", "keep") }), "list"),
  8: msg("windowsOptions", () => WINDOWS_OPTIONS),
  9: str("fsGroupChangePolicy", "keep"),
  10: msg("seccompProfile", () => PROFILE),
  11: msg("appArmorProfile", () => PROFILE),
  12: str("supplementalGroupsPolicy", "keep"),
  13: str("seLinuxChangePolicy", "keep"),
};

export const CONTAINER: Schema = {
  1: str("name", "keep"),
  2: str("image"),
  3: str("command", "list"),
  4: str("args", "list"),
  5: str("workingDir"),
  6: msg("ports", () => CONTAINER_PORT, "list"),
  7: msg("env", () => ENV_VAR, "list"),
  8: msg("resources", () => RESOURCE_REQUIREMENTS),
  9: msg("volumeMounts", () => VOLUME_MOUNT, "list"),
  10: msg("livenessProbe", () => PROBE),
  11: msg("readinessProbe", () => PROBE),
  12: msg("lifecycle", () => LIFECYCLE),
  13: str("terminationMessagePath"),
  14: str("imagePullPolicy"),
  15: msg("securityContext", () => SECURITY_CONTEXT),
  16: bool("stdin"),
  17: bool("stdinOnce"),
  18: bool("tty"),
  19: msg("envFrom", () => ENV_FROM_SOURCE, "list"),
  20: str("terminationMessagePolicy"),
  21: msg("volumeDevices", () => ({ 1: str("name", "keep"), 2: str("devicePath", "keep") }), "list"),
  22: msg("startupProbe", () => PROBE),
  23: msg(
    "resizePolicy",
    () => ({ 1: str("resourceName", "keep"), 2: str("restartPolicy", "keep") }),
    "list",
  ),
  24: str("restartPolicy", "keep"),
};

const KEY_TO_PATH: Schema = { 1: str("key", "keep"), 2: str("path", "keep"), 3: i32("mode", "keep") };
const items = msg("items", () => KEY_TO_PATH, "list");
const DOWNWARD_API_FILE: Schema = {
  1: str("path", "keep"),
  2: msg("fieldRef", () => OBJECT_FIELD_SELECTOR),
  3: msg("resourceFieldRef", () => RESOURCE_FIELD_SELECTOR),
  4: i32("mode", "keep"),
};
const downwardItems = msg("items", () => DOWNWARD_API_FILE, "list");
const VOLUME_PROJECTION: Schema = {
  1: msg("secret", () => ({ 1: localRef, 2: items, 4: bool("optional", "keep") })),
  2: msg("downwardAPI", () => ({ 1: downwardItems })),
  3: msg("configMap", () => ({ 1: localRef, 2: items, 4: bool("optional", "keep") })),
  4: msg("serviceAccountToken", () => ({
    1: str("audience"),
    2: i64("expirationSeconds", "keep"),
    3: str("path", "keep"),
  })),
};
const VOLUME_SOURCE: Schema = {
  1: msg("hostPath", () => ({ 1: str("path", "keep"), 2: str("type", "keep") })),
  2: msg("emptyDir", () => ({ 1: str("medium"), 2: quantity("sizeLimit") })),
  6: msg("secret", () => ({
    1: str("secretName"),
    2: items,
    3: i32("defaultMode", "keep"),
    4: bool("optional", "keep"),
  })),
  7: msg("nfs", () => ({ 1: str("server", "keep"), 2: str("path", "keep"), 3: bool("readOnly") })),
  10: msg("persistentVolumeClaim", () => ({ 1: str("claimName", "keep"), 2: bool("readOnly") })),
  16: msg("downwardAPI", () => ({ 1: downwardItems, 2: i32("defaultMode", "keep") })),
  19: msg("configMap", () => ({
    1: localRef,
    2: items,
    3: i32("defaultMode", "keep"),
    4: bool("optional", "keep"),
  })),
  26: msg("projected", () => ({
    1: msg("sources", () => VOLUME_PROJECTION, "list", "null"),
    2: i32("defaultMode", "keep"),
  })),
  28: msg("csi", () => ({
    1: str("driver", "keep"),
    2: bool("readOnly", "keep"),
    3: str("fsType", "keep"),
    4: map("volumeAttributes"),
    5: msg("nodePublishSecretRef", () => LOCAL_OBJECT_REFERENCE),
  })),
  30: msg("image", () => ({ 1: str("reference"), 2: str("pullPolicy") })),
};
const VOLUME: Schema = { 1: str("name", "keep"), 2: inline(() => VOLUME_SOURCE) };

const NODE_SELECTOR_REQUIREMENT: Schema = {
  1: str("key", "keep"),
  2: str("operator", "keep"),
  3: str("values", "list"),
};
const NODE_SELECTOR_TERM: Schema = {
  1: msg("matchExpressions", () => NODE_SELECTOR_REQUIREMENT, "list"),
  2: msg("matchFields", () => NODE_SELECTOR_REQUIREMENT, "list"),
};
const NODE_AFFINITY: Schema = {
  1: msg("requiredDuringSchedulingIgnoredDuringExecution", () => ({
    1: msg("nodeSelectorTerms", () => NODE_SELECTOR_TERM, "list", "null"),
  })),
  2: msg(
    "preferredDuringSchedulingIgnoredDuringExecution",
    () => ({ 1: i32("weight", "keep"), 2: msg("preference", () => NODE_SELECTOR_TERM) }),
    "list",
  ),
};
const POD_AFFINITY_TERM: Schema = {
  1: msg("labelSelector", () => LABEL_SELECTOR),
  2: str("namespaces", "list"),
  3: str("topologyKey", "keep"),
  4: msg("namespaceSelector", () => LABEL_SELECTOR),
  5: str("matchLabelKeys", "list"),
  6: str("mismatchLabelKeys", "list"),
};
const POD_AFFINITY: Schema = {
  1: msg("requiredDuringSchedulingIgnoredDuringExecution", () => POD_AFFINITY_TERM, "list"),
  2: msg(
    "preferredDuringSchedulingIgnoredDuringExecution",
    () => ({ 1: i32("weight", "keep"), 2: msg("podAffinityTerm", () => POD_AFFINITY_TERM) }),
    "list",
  ),
};
const AFFINITY: Schema = {
  1: msg("nodeAffinity", () => NODE_AFFINITY),
  2: msg("podAffinity", () => POD_AFFINITY),
  3: msg("podAntiAffinity", () => POD_AFFINITY),
};
const TOLERATION: Schema = {
  1: str("key"),
  2: str("operator"),
  3: str("value"),
  4: str("effect"),
  5: i64("tolerationSeconds", "keep"),
};
const TOPOLOGY_SPREAD_CONSTRAINT: Schema = {
  1: i32("maxSkew", "keep"),
  2: str("topologyKey", "keep"),
  3: str("whenUnsatisfiable", "keep"),
  4: msg("labelSelector", () => LABEL_SELECTOR),
  5: i32("minDomains", "keep"),
  6: str("nodeAffinityPolicy", "keep"),
  7: str("nodeTaintsPolicy", "keep"),
  8: str("matchLabelKeys", "list"),
};
const DNS_CONFIG: Schema = {
  1: str("nameservers", "list"),
  2: str("searches", "list"),
  3: msg("options", () => ({ 1: str("name"), 2: str("value", "keep") }), "list"),
};
const named = (key: string): Schema => ({ 1: str(key, "keep") });

export const POD_SPEC: Schema = {
  1: msg("volumes", () => VOLUME, "list"),
  2: msg("containers", () => CONTAINER, "list", "null"),
  3: str("restartPolicy"),
  4: i64("terminationGracePeriodSeconds", "keep"),
  5: i64("activeDeadlineSeconds", "keep"),
  6: str("dnsPolicy"),
  7: map("nodeSelector"),
  8: str("serviceAccountName"),
  9: str("serviceAccount"),
  10: str("nodeName"),
  11: bool("hostNetwork"),
  12: bool("hostPID"),
  13: bool("hostIPC"),
  14: msg("securityContext", () => POD_SECURITY_CONTEXT),
  15: msg("imagePullSecrets", () => LOCAL_OBJECT_REFERENCE, "list"),
  16: str("hostname"),
  17: str("subdomain"),
  18: msg("affinity", () => AFFINITY),
  19: str("schedulerName"),
  20: msg("initContainers", () => CONTAINER, "list"),
  21: bool("automountServiceAccountToken", "keep"),
  22: msg("tolerations", () => TOLERATION, "list"),
  23: msg("hostAliases", () => ({ 1: str("ip", "keep"), 2: str("hostnames", "list") }), "list"),
  24: str("priorityClassName"),
  25: i32("priority", "keep"),
  26: msg("dnsConfig", () => DNS_CONFIG),
  27: bool("shareProcessNamespace", "keep"),
  28: msg("readinessGates", () => named("conditionType"), "list"),
  29: str("runtimeClassName", "keep"),
  30: bool("enableServiceLinks", "keep"),
  31: str("preemptionPolicy", "keep"),
  32: map("overhead", "quantity"),
  33: msg("topologySpreadConstraints", () => TOPOLOGY_SPREAD_CONSTRAINT, "list"),
  35: bool("setHostnameAsFQDN", "keep"),
  36: msg("os", () => named("name")),
  37: bool("hostUsers", "keep"),
  38: msg("schedulingGates", () => named("name"), "list"),
};

export const POD_TEMPLATE_SPEC: Schema = { 1: metadata, 2: msg("spec", () => POD_SPEC) };
