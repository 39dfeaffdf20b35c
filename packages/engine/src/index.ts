export { autogenControllers } from "./autogen/index.js";
export { DEFAULT_EVALUATION_LIMITS, type EvaluationLimits } from "./budget/budget.js";
export { createCelEngine } from "./cel-policies/engine.js";
export type {
  CelCompileOptions,
  CelCompileResult,
  CelEngine,
  CelEngineOptions,
  CelEnginePolicy,
  CelPolicyType,
  CompiledCelPolicy,
} from "./cel-policies/types.js";
export { ruleKindOf } from "./compile/compiled.js";
export { createEngine } from "./engine.js";
export type {
  ApiCallRequest,
  CompiledPolicy,
  CompileIssue,
  CompileResult,
  ContextLoader,
  Engine,
  EngineOptions,
  EngineRequest,
  KubeResourceCall,
  LoadResult,
  Operation,
  RequestCache,
  RuleInfo,
  RuleKind,
  RuleSelection,
  UnsupportedRule,
  UserInfo,
} from "./engine-types.js";
export { createRequestCache } from "./evaluation/request-cache.js";
export type { ImageInfo } from "./images/images.js";
export { parseImage } from "./images/images.js";
export type { Jmespath, JmespathOptions, JmespathResult } from "./jmespath/index.js";
export { createJmespath } from "./jmespath/index.js";
export type { KindSelector } from "./match/index.js";
export { parseKindSelector } from "./match/index.js";
export { applyJson6902, applyStrategicMerge, diffJson6902, parseJson6902 } from "./mutate/index.js";
export {
  policyReportResults,
  type ReportOptions,
  reportStatus,
  reportSummary,
  resourceReference,
  SCORED_ANNOTATION,
} from "./report/report.js";
export type {
  GeneratedResource,
  PolicyResponse,
  ResourceRef,
  RuleResponse,
  RuleStatus,
  RuleType,
  TargetPatch,
} from "./response/types.js";
export { hasWildcard, matchWildcard } from "./wildcard/wildcard.js";
