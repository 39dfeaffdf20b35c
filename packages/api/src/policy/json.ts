/** JSON values, as found in resources, policy patterns and loaded documents. */

/** A JSON value as found in a resource or a policy pattern. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object; use `JsonValue` when the value may be any JSON. */
export type JsonObject = { [key: string]: JsonValue };
