/** Schemas of conditions (preconditions, deny conditions, exception conditions) per API version. */
import type { Issue } from "../load/errors.js";
import { s } from "../schema/dsl.js";

/** Every operator upstream's policy validation accepts in `any`/`all` conditions of free-form fields. */
const CONDITION_OPERATORS: readonly string[] = [
  "Equal",
  "Equals",
  "NotEqual",
  "NotEquals",
  "In",
  "AnyIn",
  "AllIn",
  "NotIn",
  "AnyNotIn",
  "AllNotIn",
  "GreaterThanOrEquals",
  "GreaterThan",
  "LessThanOrEquals",
  "LessThan",
  "DurationGreaterThanOrEquals",
  "DurationGreaterThan",
  "DurationLessThanOrEquals",
  "DurationLessThan",
];

/** Operators of typed v1 conditions (CRD enum): no `Equal`/`NotEqual` aliases. */
const V1_OPERATORS = CONDITION_OPERATORS.filter((op) => op !== "Equal" && op !== "NotEqual");

/** Operators of v2beta1 / v2 conditions (CRD enum): the deprecated `In`/`NotIn` are gone too. */
const V2_OPERATORS = V1_OPERATORS.filter((op) => op !== "In" && op !== "NotIn");

function condition(operators: readonly string[]) {
  return s.object(
    { key: s.any(), operator: s.enum(operators), value: s.any(), message: s.string() },
    { required: ["operator"], defaults: { key: null } },
  );
}

function anyAll(operators: readonly string[]) {
  const list = s.array(condition(operators));
  return s.object({ any: list, all: list });
}

/** The legacy flat list of conditions (all must hold); upstream does not check its operators, so we warn. */
const legacyList = s.array(
  s.object(
    { key: s.any(), operator: s.string(), value: s.any(), message: s.string() },
    {
      required: ["operator"],
      defaults: { key: null },
      checks: [
        (o, path): Issue[] => {
          const op = typeof o.operator === "string" ? o.operator.toLowerCase() : "";
          if (CONDITION_OPERATORS.some((known) => known.toLowerCase() === op)) return [];
          return [
            {
              code: "invalid-value",
              path,
              message: `unknown operator ${JSON.stringify(o.operator)}`,
              warning: true,
            },
          ];
        },
      ],
    },
  ),
);

/** Conditions in a free-form (v1) field: `any`/`all`, or the legacy list. */
export const freeConditions = s.union({ object: anyAll(CONDITION_OPERATORS), array: legacyList });

/** Typed v1 conditions (`foreach[].preconditions`, attestation conditions). */
export const v1Conditions = anyAll(V1_OPERATORS);

/** Typed v2beta1 / v2 conditions. */
export const v2Conditions = anyAll(V2_OPERATORS);
