/**
 * @kyverno-ts/kubelet: test infrastructure that plays the node for the sandbox API server. It runs the
 * Deployment, ReplicaSet, Job and endpoints controllers and a kubelet whose containers are local
 * processes (or podman containers) in per-Pod network namespaces. Never imported by the product.
 */
export type { ApiServerAccess } from "./api/token-request.js";
export { type CapturedLog, createKubelet, type Kubelet, type KubeletOptions } from "./kubelet.js";
export {
  createPodNetwork,
  type PodAttachment,
  type PodNetwork,
  type PodNetworkOptions,
  removeLeftoverNetworks,
} from "./network/pod-network.js";
