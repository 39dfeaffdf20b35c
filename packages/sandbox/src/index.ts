export type { AdmissionResult, RequestUser } from "./admission/types.js";
export { runSandboxCommand } from "./main.js";
export { type Sandbox, type SandboxOptions, startSandbox } from "./sandbox.js";
export { type CertificateAndKey, createCertificateAuthority } from "./tls/certificates.js";
