import type { KubeObject } from "@kyverno-ts/api";
import type { Operation } from "../engine-types.js";
import type { RequestKind } from "./kind.js";
import type { RequestUser } from "./subjects.js";

/** What match/exclude blocks are evaluated against: a resource and the admission request around it. */
export interface MatchRequest extends RequestKind {
  /** The object; for DELETE, the old object. */
  resource: KubeObject;
  operation: Operation;
  /** Labels of the resource's namespace, for `namespaceSelector`; unknown labels count as none. */
  namespaceLabels?: Record<string, string>;
  /** The requester; absent in background scans, where subject filters never match. */
  userInfo?: RequestUser;
  roles?: string[];
  clusterRoles?: string[];
  /** Namespace of a namespaced `Policy`: its rules only apply to resources in that namespace. */
  policyNamespace?: string;
}
