import type { Conditions, MatchResources, ObjectMeta, PodSecurityExclude } from "./types.js";

/** A kyverno.io/v2 or v2beta1 PolicyException. */
export interface PolicyException {
  apiVersion: string;
  kind: "PolicyException";
  metadata: ObjectMeta & { name: string };
  spec: {
    background?: boolean;
    match: MatchResources;
    conditions?: Conditions;
    exceptions: Array<{ policyName: string; ruleNames: string[] }>;
    podSecurity?: PodSecurityExclude[];
  };
}
