/**
 * The sandbox's webhook admission chain: what kube-apiserver's Mutating/ValidatingAdmissionWebhook
 * plugins do on every write. The API server calls `createAdmissionChain(...).admit(attrs)` (or the
 * `mutate` / `validate` phases around its own object validation).
 */
export { type AdmissionChainOptions, createAdmissionChain } from "./chain.js";
export type { ServiceResolver } from "./http-client.js";
export type {
  AdmissionAttributes,
  AdmissionChain,
  AdmissionResult,
  AdmitOptions,
  PhasedAdmissionChain,
  RequestUser,
  StatusError,
  WebhookSource,
} from "./types.js";
