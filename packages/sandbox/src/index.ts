/**
 * @kyverno-ts/sandbox: a local Kubernetes API server (the role envtest plays for Go controllers) that
 * `kubectl` and `@kubernetes/client-node` talk to over HTTPS. See README.md for the conformance table.
 */
export { type AdmissionChainOptions, createAdmissionChain, type ServiceResolver } from "./admission/index.js";
export type {
  AdmissionAttributes,
  AdmissionChain,
  AdmissionResult,
  RequestUser,
  StatusError,
  WebhookSource,
} from "./admission/types.js";
export type { SandboxUser } from "./auth/authenticator.js";
export { type RunSandboxOptions, runSandboxCommand } from "./main.js";
export { type Sandbox, type SandboxOptions, startSandbox } from "./sandbox.js";
export {
  type CertificateAndKey,
  type CertificateAuthority,
  createCertificateAuthority,
} from "./tls/certificates.js";
export type { PodLogRequest, PodLogSource } from "./verbs/pod-log.js";
