export { fnv1a32 } from "./hash/fnv.js";
export { classifyDocument } from "./load/classify.js";
export type { LoadError, Loaded, Where } from "./load/errors.js";
export { formatLoadError } from "./load/errors.js";
export type { ParsedDocument } from "./load/parse.js";
export { parseDocuments } from "./load/parse.js";
export type { Logger } from "./log/logger.js";
export { silentLogger } from "./log/logger.js";
export { loadAdmissionPolicy, loadCelPolicy, loadCelPolicyException } from "./policy/cel-load.js";
export type {
  AdmissionPolicyBinding,
  AdmissionPolicyDocument,
  AuditAnnotation,
  CelAutogen,
  CelEvaluation,
  CelMutation,
  CelPolicy,
  CelPolicyException,
  CelValidation,
  DeletingPolicy,
  GeneratingPolicy,
  GeneratingPolicySpec,
  ImageValidatingPolicy,
  MatchConstraints,
  MutatingAdmissionPolicy,
  MutatingPolicy,
  NamedExpression,
  ResourceRule,
  ValidatingAdmissionPolicy,
  ValidatingPolicy,
} from "./policy/cel-types.js";
export type { PolicyException } from "./policy/exception.js";
export { loadPolicyException } from "./policy/exception-load.js";
export { loadPolicy } from "./policy/load.js";
export type { PermissionCheck, PermissionDecision } from "./policy/permissions.js";
export { backgroundPermissionChecks, permissionIssues } from "./policy/permissions.js";
export { builtinScopeOf } from "./policy/scope.js";
export type {
  Condition,
  Conditions,
  ContextEntry,
  FailureAction,
  FailureActionOverride,
  GenerateForeach,
  GenerateTarget,
  Generation,
  JsonObject,
  JsonValue,
  KubeObject,
  LabelSelector,
  MatchResources,
  MutateForeach,
  Mutation,
  ObjectMeta,
  PodSecurityExclude,
  Policy,
  PolicySpec,
  ResourceDescription,
  ResourceFilter,
  Rule,
  Subject,
  TargetSelector,
  ValidateForeach,
  Validation,
} from "./policy/types.js";
export { validatePolicyUpdate } from "./policy/update.js";
export type {
  AnyPolicyReport,
  ClusterPolicyReport,
  ObjectReference,
  PolicyReport,
  PolicyReportResult,
  PolicyReportSummary,
  PolicySeverity,
} from "./report/types.js";
export { POLICY_REPORT_API_VERSION } from "./report/types.js";
export { loadTest, loadUserInfo, loadValues } from "./test/load.js";
export type {
  ApiCallResponse,
  GlobalContextEntryMock,
  PolicyResult,
  RequestInfo,
  TestFile,
  TestResult,
  ValuesSpec,
} from "./test/types.js";
export type { Clock, ManualClock } from "./time/clock.js";
export { createManualClock, createSystemClock, flush, sleep, systemClock } from "./time/clock.js";
