/** Protobuf schemas of the core/v1 kinds (k8s.io/api/core/v1/generated.proto), by `apiVersion/kind`. */
import { CONDITION, LOCAL_OBJECT_REFERENCE, metadata, OBJECT_REFERENCE } from "./protobuf-meta.js";
import { POD_SPEC } from "./protobuf-pod.js";
import { bool, i32, intOrString, map, msg, type Schema, str } from "./protobuf-schema.js";

const SERVICE_PORT: Schema = {
  1: str("name"),
  2: str("protocol"),
  3: i32("port", "keep"),
  4: intOrString("targetPort"),
  5: i32("nodePort"),
  6: str("appProtocol", "keep"),
};

const SERVICE_SPEC: Schema = {
  1: msg("ports", () => SERVICE_PORT, "list"),
  2: map("selector"),
  3: str("clusterIP"),
  4: str("type"),
  5: str("externalIPs", "list"),
  7: str("sessionAffinity"),
  8: str("loadBalancerIP"),
  9: str("loadBalancerSourceRanges", "list"),
  10: str("externalName"),
  11: str("externalTrafficPolicy"),
  12: i32("healthCheckNodePort"),
  13: bool("publishNotReadyAddresses"),
  14: msg("sessionAffinityConfig", () => ({
    1: msg("clientIP", () => ({ 1: i32("timeoutSeconds", "keep") })),
  })),
  17: str("ipFamilyPolicy", "keep"),
  18: str("clusterIPs", "list"),
  19: str("ipFamilies", "list"),
  20: bool("allocateLoadBalancerNodePorts", "keep"),
  21: str("loadBalancerClass", "keep"),
  22: str("internalTrafficPolicy", "keep"),
  23: str("trafficDistribution", "keep"),
};

/** LoadBalancerIngress of Services (core/v1) and Ingresses (networking/v1). */
export const LOAD_BALANCER_INGRESS: Schema = {
  1: str("ip"),
  2: str("hostname"),
  3: str("ipMode", "keep"),
  4: msg(
    "ports",
    () => ({ 1: i32("port", "keep"), 2: str("protocol", "keep"), 3: str("error", "keep") }),
    "list",
  ),
};

const loadBalancer = msg("loadBalancer", () => ({ 1: msg("ingress", () => LOAD_BALANCER_INGRESS, "list") }));

const SCOPE_SELECTOR: Schema = {
  1: msg(
    "matchExpressions",
    () => ({ 1: str("scopeName", "keep"), 2: str("operator", "keep"), 3: str("values", "list") }),
    "list",
  ),
};

export const CORE_KINDS: Readonly<Record<string, Schema>> = {
  "v1/Namespace": {
    1: metadata,
    2: msg("spec", () => ({ 1: str("finalizers", "list") })),
    3: msg("status", () => ({ 1: str("phase") })),
  },
  "v1/ConfigMap": {
    1: metadata,
    2: map("data"),
    3: map("binaryData", "bytes"),
    4: bool("immutable", "keep"),
  },
  "v1/Secret": {
    1: metadata,
    2: map("data", "bytes"),
    3: str("type"),
    4: map("stringData"),
    5: bool("immutable", "keep"),
  },
  "v1/ServiceAccount": {
    1: metadata,
    2: msg("secrets", () => OBJECT_REFERENCE, "list"),
    3: msg("imagePullSecrets", () => LOCAL_OBJECT_REFERENCE, "list"),
    4: bool("automountServiceAccountToken", "keep"),
  },
  "v1/Service": {
    1: metadata,
    2: msg("spec", () => SERVICE_SPEC),
    3: msg("status", () => ({ 1: loadBalancer, 2: msg("conditions", () => CONDITION, "list") })),
  },
  "v1/ResourceQuota": {
    1: metadata,
    2: msg("spec", () => ({
      1: map("hard", "quantity"),
      2: str("scopes", "list"),
      3: msg("scopeSelector", () => SCOPE_SELECTOR),
    })),
    3: msg("status", () => ({ 1: map("hard", "quantity"), 2: map("used", "quantity") })),
  },
  "v1/Pod": {
    1: metadata,
    2: msg("spec", () => POD_SPEC),
    3: msg("status", () => ({ 1: str("phase") })),
  },
};
