export { DEFAULT_EVALUATION_LIMITS, type EvaluationLimits } from "./budget/budget.js";
export { createCelEngine } from "./cel-policies/engine.js";
export type { CelEngine, CelEnginePolicy, CelPolicyType, CompiledCelPolicy } from "./cel-policies/types.js";
export { ruleKindOf } from "./compile/compiled.js";
export { createEngine } from "./engine.js";
export type {
  ApiCallRequest,
  CompiledPolicy,
  CompileIssue,
  ContextLoader,
  Engine,
  EngineRequest,
  KubeResourceCall,
  LoadResult,
  Operation,
  RuleInfo,
  RuleKind,
  UserInfo,
} from "./engine-types.js";
export { createRequestCache } from "./evaluation/request-cache.js";
export type { Jmespath } from "./jmespath/index.js";
export { createJmespath } from "./jmespath/index.js";
export type { KindSelector } from "./match/index.js";
export { parseKindSelector } from "./match/index.js";
export { applyJson6902 } from "./mutate/index.js";
export { policyReportResults, reportStatus, reportSummary, SCORED_ANNOTATION } from "./report/report.js";
export type {
  GeneratedResource,
  PolicyResponse,
  ResourceRef,
  RuleResponse,
  RuleStatus,
  RuleType,
} from "./response/types.js";
export { hasWildcard, matchWildcard } from "./wildcard/wildcard.js";
