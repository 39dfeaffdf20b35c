/** The schema of kyverno.io/v2 and v2beta1 PolicyException documents. */
import { s } from "../schema/dsl.js";
import { namedMeta } from "../schema/kube.js";
import type { ObjectMeta } from "./meta.js";
import { v2Conditions } from "./schema-conditions.js";
import { v2Exclude } from "./schema-match.js";
import { podSecurityExclude } from "./schema-rule.js";
import type { Conditions, MatchResources } from "./types.js";

/** The schema of a PolicyException; its values are typed with the (wider) kyverno.io/v1 match and conditions. */
export const exceptionSchema = s.object(
  {
    apiVersion: s.string(),
    kind: s.enum(["PolicyException"]),
    metadata: s.typed<ObjectMeta & { name: string }>(namedMeta),
    spec: s.object(
      {
        background: s.boolean(),
        match: s.typed<MatchResources>(v2Exclude),
        conditions: s.typed<Conditions>(v2Conditions),
        exceptions: s.array(
          s.object(
            { policyName: s.string(), ruleNames: s.strings() },
            { required: ["policyName", "ruleNames"] },
          ),
        ),
        podSecurity: s.array(podSecurityExclude),
      },
      { required: ["exceptions", "match"] },
    ),
    status: s.any(),
  },
  { required: ["apiVersion", "kind", "metadata", "spec"] },
);
