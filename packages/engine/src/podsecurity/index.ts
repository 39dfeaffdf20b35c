export { evaluatePodSecurity } from "./evaluate.js";
export { podSecurityMessage } from "./message.js";
export { podOf } from "./pod-of.js";
export type {
  PodSecurityEvaluation,
  PodSecurityInput,
  PssCheckResult,
  PssContainerKind,
  PssContainerRef,
  PssFinding,
  PssLevel,
} from "./types.js";
