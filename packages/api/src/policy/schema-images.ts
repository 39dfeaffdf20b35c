/** Schemas of image verification: `verifyImages[]`, attestors, and `validate.manifests`. */
import { isSet, structure } from "../schema/checks.js";
import { type ObjectSchema, omit, type Schema, s } from "../schema/dsl.js";
import { freeConditions, v1Conditions, v2Conditions } from "./schema-conditions.js";
import { imageRegistryCredentials } from "./schema-context.js";

const ctlog = s.object({ ignoreSCT: s.boolean(), pubkey: s.string(), tsaCertChain: s.string() });
const rekor = s.object({ ignoreTlog: s.boolean(), pubkey: s.string(), url: s.string() });

const attestorEntry = s.object({
  annotations: s.stringMap(),
  attestor: s.any(),
  certificates: s.object({ cert: s.string(), certChain: s.string(), ctlog, rekor }),
  keyless: s.object({
    additionalExtensions: s.stringMap(),
    ctlog,
    issuer: s.string(),
    issuerRegExp: s.string(),
    rekor,
    roots: s.string(),
    subject: s.string(),
    subjectRegExp: s.string(),
  }),
  keys: s.object({
    ctlog,
    kms: s.string(),
    publicKeys: s.string(),
    rekor,
    secret: s.object({ name: s.string(), namespace: s.string() }, { required: ["name", "namespace"] }),
    signatureAlgorithm: s.string(),
  }),
  repository: s.string(),
  signatureAlgorithm: s.string(),
});

/** A set of attestors of which `count` (default all) must verify. */
const attestorSet: ObjectSchema = s.object({ count: s.integer(), entries: s.array(attestorEntry) });

/** `validate.manifests`: signed YAML manifests. */
export const manifests: ObjectSchema = s.object({
  annotationDomain: s.string(),
  attestors: s.array(attestorSet),
  dryRun: s.object({ enable: s.boolean(), namespace: s.string() }),
  ignoreFields: s.array(
    s.object({
      fields: s.strings(),
      objects: s.array(
        s.object({
          group: s.string(),
          kind: s.string(),
          name: s.string(),
          namespace: s.string(),
          version: s.string(),
        }),
      ),
    }),
  ),
  repository: s.string(),
});

const DEPRECATED_V1 = ["additionalExtensions", "annotations", "image", "issuer", "key", "roots", "subject"];

function imageVerification(conditions: ObjectSchema): ObjectSchema {
  return s.object(
    {
      type: s.enum(["Cosign", "SigstoreBundle", "Notary"]),
      failureAction: s.enum(["Audit", "Enforce"]),
      imageReferences: s.strings(),
      skipImageReferences: s.strings(),
      attestors: s.array(attestorSet),
      attestations: s.array(
        s.object({
          name: s.string(),
          type: s.string(),
          predicateType: s.string(),
          attestors: s.array(attestorSet),
          conditions: s.array(conditions),
        }),
      ),
      repository: s.string(),
      mutateDigest: s.boolean(),
      verifyDigest: s.boolean(),
      required: s.boolean(),
      useCache: s.boolean(),
      imageRegistryCredentials,
      validate: s.object({ deny: s.object({ conditions: freeConditions }), message: s.string() }),
      cosignOCI11: s.boolean(),
      additionalExtensions: s.stringMap(),
      annotations: s.stringMap(),
      image: s.string(),
      issuer: s.string(),
      key: s.string(),
      roots: s.string(),
      subject: s.string(),
    },
    {
      deprecated: Object.fromEntries(DEPRECATED_V1.map((k) => [k, "use imageReferences and attestors"])),
      checks: [
        (o, path) =>
          isSet(o.imageReferences) || isSet(o.image)
            ? []
            : [structure(path, "an image reference is required (imageReferences)")],
      ],
    },
  );
}

/** One `verifyImages[]` entry of a kyverno.io/v1 rule (with the deprecated single-attestor fields). */
export const v1ImageVerification: Schema = imageVerification(v1Conditions);

/** One `verifyImages[]` entry of a v2beta1 rule. */
export const v2ImageVerification: Schema = omit(imageVerification(v2Conditions), [
  ...DEPRECATED_V1,
  "cosignOCI11",
]);
