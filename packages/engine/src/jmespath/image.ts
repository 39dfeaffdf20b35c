/**
 * `image_normalize`: Kyverno's image reference normalisation (pkg/utils/image GetImageInfo +
 * ImageInfo.String). A reference without a registry gets `docker.io/` (no `library/`, as upstream);
 * one with neither tag nor digest gets `:latest`; with a digest the tag is dropped.
 * The grammar is distribution/reference's, evaluated with re2js so hostile input stays linear.
 */
import { RE2JS } from "re2js";
import { arg, type FunctionDef } from "./context.js";
import { functionError } from "./errors.js";

const DEFAULT_REGISTRY = "docker.io";

const ALNUM = "[a-z0-9]+";
const SEPARATOR = "(?:[._]|__|[-]+)";
const PATH_COMPONENT = `${ALNUM}(?:${SEPARATOR}${ALNUM})*`;
const DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const DOMAIN_NAME = `${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*`;
const IPV6 = "\\[(?:[a-fA-F0-9:]+)\\]";
const DOMAIN = `(?:${DOMAIN_NAME}|${IPV6})(?::[0-9]+)?`;
const NAME = `(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const TAG = "[\\w][\\w.-]{0,127}";
const DIGEST = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}";
const REFERENCE_PATTERN = `^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`;
const DOMAIN_PATTERN = `^${DOMAIN}$`;

/** Kyverno's addDefaultRegistry. */
function addDefaultRegistry(name: string): string {
  const i = name.indexOf("/");
  const first = i < 0 ? "" : name.slice(0, i);
  if (i < 0 || (!/[.:]/.test(first) && first !== "localhost" && first.toLowerCase() === first)) {
    return `${DEFAULT_REGISTRY}/${name}`;
  }
  return name;
}

/** The parts of an image reference after defaults are applied. */
export interface ImageParts {
  registry: string;
  path: string;
  tag: string;
  digest: string;
}

/** Compiled grammar; created per Jmespath instance so that no matcher state lives at module level. */
interface Grammar {
  readonly reference: RE2JS;
  readonly domain: RE2JS;
}

function compileGrammar(): Grammar {
  return { reference: RE2JS.compile(REFERENCE_PATTERN), domain: RE2JS.compile(DOMAIN_PATTERN) };
}

/** Parses an image reference as Kyverno does; throws a descriptive Error when it is invalid. */
export function parseImage(image: string, grammar: Grammar = compileGrammar()): ImageParts {
  const reference = grammar.reference;
  const domain = grammar.domain;
  const full = addDefaultRegistry(image);
  const bad = (why: string) =>
    new Error(
      `bad image: ${full}, defaultRegistry: ${DEFAULT_REGISTRY}, enableDefaultRegistryMutation: true: ${why}`,
    );
  if (full.length === 0) throw bad("repository name must have at least one component");
  const m = reference.matcher(full);
  if (!m.matches()) {
    if (reference.matcher(full.toLowerCase()).matches()) throw bad("repository name must be lowercase");
    throw bad("invalid reference format");
  }
  const name = m.group(1) ?? "";
  if (name.length > 255) throw bad("repository name must not be more than 255 characters");
  const slash = name.indexOf("/");
  const head = name.slice(0, slash);
  const hasDomain = slash >= 0 && domain.matcher(head).matches();
  const digest = m.group(3) ?? "";
  if (digest.startsWith("sha256:") && digest.length !== 7 + 64) throw bad("invalid checksum digest length");
  const tag = m.group(2) ?? "";
  return {
    registry: hasDomain ? head : "",
    path: hasDomain ? name.slice(slash + 1) : name,
    tag: tag === "" && digest === "" ? "latest" : tag,
    digest,
  };
}

/** ImageInfo.String(). */
export function normalizeImage(image: string, grammar: Grammar = compileGrammar()): string {
  const info = parseImage(image, grammar);
  const base = info.registry === "" ? info.path : `${info.registry}/${info.path}`;
  return info.digest !== "" ? `${base}@${info.digest}` : `${base}:${info.tag}`;
}

/** image_normalize, with its grammar compiled once per instance. */
export function imageFunctions(): readonly FunctionDef[] {
  const grammar = compileGrammar();
  return [
    {
      name: "image_normalize",
      args: [arg("string")],
      returns: "string",
      description: "canonical image reference: default registry docker.io and tag latest added",
      call: (a) => {
        try {
          return normalizeImage(typeof a[0] === "string" ? a[0] : "", grammar);
        } catch (thrown) {
          throw functionError("image_normalize", thrown instanceof Error ? thrown.message : String(thrown));
        }
      },
    },
  ];
}
