export type { KindListParser, KindSelector, RequestKind } from "./kind.js";
export {
  containsKind,
  matchKind,
  matchKindSelector,
  matchKinds,
  parseKindList,
  parseKindSelector,
  resourceGvk,
} from "./kind.js";
export { matchesMatchResources, matchesRule } from "./match.js";
export type { MatchRequest } from "./request.js";
export { matchesResourceFilter } from "./resource-filter.js";
export { matchWildcardSelector } from "./selector.js";
export type { RequestUser } from "./subjects.js";
export { matchRoles, matchSubjects } from "./subjects.js";
