/** Schema of rule `context` entries. */
import type { Issue } from "../load/errors.js";
import { isPresent, str, structure } from "../schema/checks.js";
import { type Check, type ObjectSchema, s } from "../schema/dsl.js";
import type { JsonObject } from "./json.js";

const SOURCES = ["configMap", "apiCall", "imageRegistry", "variable", "globalReference"];

/** Names upstream reserves for built-in variables; a context entry may not shadow them. */
const RESERVED = [
  "images",
  "request",
  "serviceAccountName",
  "serviceAccountNamespace",
  "element",
  "elementIndex",
];

/** Credentials for registry access, shared with verifyImages. */
export const imageRegistryCredentials: ObjectSchema = s.object({
  allowInsecureRegistry: s.boolean(),
  providers: s.array(s.enum(["default", "amazon", "azure", "google", "github"])),
  secrets: s.strings(),
});

const apiCall = s.object(
  {
    urlPath: s.string(),
    method: s.enum(["GET", "POST"]),
    data: s.array(s.object({ key: s.string(), value: s.any() }, { required: ["key", "value"] })),
    service: s.object(
      {
        url: s.string(),
        caBundle: s.string(),
        headers: s.array(s.object({ key: s.string(), value: s.string() }, { required: ["key", "value"] })),
      },
      { required: ["url"] },
    ),
    jmesPath: s.string(),
    default: s.any(),
  },
  {
    checks: [
      (o, path) =>
        isPresent(o.urlPath) && isPresent(o.service)
          ? [structure(path, "a urlPath cannot be used for service API calls")]
          : [],
    ],
  },
);

const entryChecks: Check<JsonObject> = (o, path) => {
  const issues: Issue[] = [];
  const name = str(o, "name") ?? "";
  const clash = RESERVED.find((r) => name === r || name.startsWith(`${r}.`));
  if (clash !== undefined) {
    const message = `entry name ${JSON.stringify(name)} conflicts with the pre-defined variable ${JSON.stringify(clash)}`;
    issues.push(structure([...path, "name"], message));
  }
  if (SOURCES.filter((k) => isPresent(o[k])).length !== 1) {
    issues.push(
      structure(
        path,
        "exactly one of configMap, apiCall, imageRegistry, variable or globalReference must be provided",
      ),
    );
  }
  return issues;
};

/** One `context` entry: a name and exactly one source. */
export const contextEntry = s.object(
  {
    name: s.string(),
    configMap: s.object({ name: s.string(), namespace: s.string() }, { required: ["name"] }),
    apiCall,
    imageRegistry: s.object(
      {
        reference: s.string(),
        jmesPath: s.string(),
        // Carried as raw JSON by the engine.
        imageRegistryCredentials: s.typed<JsonObject>(imageRegistryCredentials),
      },
      { required: ["reference"] },
    ),
    variable: s.object(
      { value: s.any(), jmesPath: s.string(), default: s.any() },
      {
        checks: [
          (o, path) => {
            const jmes = str(o, "jmesPath") ?? "";
            if (!isPresent(o.value) && jmes === "") {
              return [structure(path, "a variable must define a value or a jmesPath expression")];
            }
            if (o.default !== undefined && jmes === "") {
              return [
                structure(path, "a variable may define a default only together with a jmesPath expression"),
              ];
            }
            return [];
          },
        ],
      },
    ),
    globalReference: s.object({ name: s.string(), jmesPath: s.string() }, { required: ["name"] }),
  },
  { required: ["name"], checks: [entryChecks] },
);
