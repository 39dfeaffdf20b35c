import type { Infer } from "../schema/dsl.js";
import type { exceptionSchema } from "./exception-schema.js";

/** A kyverno.io/v2 or v2beta1 PolicyException, inferred from the loader's schema. */
export type PolicyException = Infer<typeof exceptionSchema>;
