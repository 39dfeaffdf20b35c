export type { DocumentClass } from "./load/classify.js";
export { classifyDocument } from "./load/classify.js";
export type { LoadError, LoadErrorCode, Loaded, PathSegment, Where } from "./load/errors.js";
export { formatLoadError, formatPath } from "./load/errors.js";
export type { ParsedDocument, ParsedFile } from "./load/parse.js";
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
  DeletingPolicySpec,
  GeneratingPolicy,
  GeneratingPolicySpec,
  ImageValidatingPolicy,
  MatchConstraints,
  MutatingAdmissionPolicy,
  MutatingPolicy,
  MutatingPolicySpec,
  NamedExpression,
  ResourceRule,
  ValidatingAdmissionPolicy,
  ValidatingPolicy,
  ValidatingPolicySpec,
} from "./policy/cel-types.js";
export type { PolicyCheckOptions } from "./policy/checks.js";
export type { PolicyException } from "./policy/exception.js";
export { loadPolicyException } from "./policy/exception-load.js";
export { loadPolicy } from "./policy/load.js";
export type {
  DecidePermission,
  PermissionCheck,
  PermissionDecision,
  PermissionIssue,
} from "./policy/permissions.js";
export { backgroundPermissionChecks, permissionIssues } from "./policy/permissions.js";
export type { KindScope, ScopeOf } from "./policy/scope.js";
export { builtinScopeOf } from "./policy/scope.js";
export type {
  Condition,
  ConditionOperator,
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
export type { PolicyUpdateIssue, PolicyUpdateResult } from "./policy/update.js";
export { validatePolicyUpdate } from "./policy/update.js";
export type {
  AnyPolicyReport,
  ClusterPolicyReport,
  ObjectReference,
  PolicyReport,
  PolicyReportResult,
  PolicyReportSummary,
  PolicySeverity,
  ReportTimestamp,
} from "./report/types.js";
export { POLICY_REPORT_API_VERSION } from "./report/types.js";
export { loadTest, loadUserInfo, loadValues } from "./test/load.js";
export type {
  ApiCallResponse,
  ApiResource,
  GlobalContextEntryMock,
  NamespaceSelectorValues,
  PolicyResult,
  RequestInfo,
  SubresourceValues,
  TestCheck,
  TestFile,
  TestResourceSpec,
  TestResult,
  UserInfoFile,
  ValuesFile,
  ValuesPolicy,
  ValuesResource,
  ValuesRule,
  ValuesSpec,
} from "./test/types.js";
export type { Clock, ManualClock, SystemClockOptions } from "./time/clock.js";
export { createManualClock, createSystemClock, flush, sleep, systemClock } from "./time/clock.js";
