import type { JsonValue } from "@kyverno-ts/api";

/** Parsed image reference with the fields Kyverno exposes under `images.*`. */
export interface ImageInfo {
  registry: string;
  path: string;
  name: string;
  tag: string;
  digest: string;
  reference: string;
  referenceWithTag: string;
}

const DEFAULT_REGISTRY = "docker.io";

/**
 * Parses an image reference as upstream does: a first path component without `.`/`:` (and not
 * `localhost`) means Docker Hub; an image with neither tag nor digest gets tag `latest`.
 * Returns undefined for a string that is not an image reference.
 */
export function parseImage(image: string): ImageInfo | undefined {
  if (image === "" || /\s/.test(image)) return undefined;
  let rest = image;
  let digest = "";
  const at = rest.indexOf("@");
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!/^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$/.test(digest))
      return undefined;
  }
  let tag = "";
  const lastSlash = rest.lastIndexOf("/");
  const colon = rest.lastIndexOf(":");
  if (colon > lastSlash) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!/^[\w][\w.-]{0,127}$/.test(tag)) return undefined;
  }
  let registry = DEFAULT_REGISTRY;
  let path = rest;
  const slash = rest.indexOf("/");
  if (slash >= 0) {
    const first = rest.slice(0, slash);
    if (first.includes(".") || first.includes(":") || first === "localhost") {
      registry = first;
      path = rest.slice(slash + 1);
    }
  }
  if (
    path === "" ||
    !/^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/.test(path)
  ) {
    return undefined;
  }
  if (tag === "" && digest === "") tag = "latest";
  const name = path.slice(path.lastIndexOf("/") + 1);
  const base = `${registry}/${path}`;
  const referenceWithTag = tag ? `${base}:${tag}` : base;
  const reference = digest ? `${base}@${digest}` : referenceWithTag;
  return { registry, path, name, tag, digest, reference, referenceWithTag };
}

/** Where the pod spec lives for each kind Kyverno extracts images from. */
function podSpecOf(resource: { [key: string]: JsonValue }): JsonValue | undefined {
  const kind = resource.kind;
  const spec = resource.spec;
  if (spec === null || typeof spec !== "object" || Array.isArray(spec)) return undefined;
  if (kind === "Pod") return spec;
  if (kind === "CronJob") return dig(spec, ["jobTemplate", "spec", "template", "spec"]);
  return dig(spec, ["template", "spec"]);
}

function dig(value: JsonValue | undefined, keys: string[]): JsonValue | undefined {
  let current = value;
  for (const key of keys) {
    if (current === null || typeof current !== "object" || Array.isArray(current)) return undefined;
    current = current[key];
  }
  return current;
}

/**
 * Builds the `images` variable: `{containers|initContainers|ephemeralContainers: {<name>: ImageInfo}}`
 * for Pods and pod controllers. Returns undefined when the resource has no containers.
 */
export function extractImages(resource: JsonValue): JsonValue | undefined {
  if (resource === null || typeof resource !== "object" || Array.isArray(resource)) return undefined;
  const podSpec = podSpecOf(resource);
  if (podSpec === undefined || podSpec === null || typeof podSpec !== "object" || Array.isArray(podSpec)) {
    return undefined;
  }
  const out: { [key: string]: JsonValue } = {};
  for (const field of ["containers", "initContainers", "ephemeralContainers"]) {
    const list = podSpec[field];
    if (!Array.isArray(list)) continue;
    const byName: { [key: string]: JsonValue } = {};
    for (const c of list) {
      if (c === null || typeof c !== "object" || Array.isArray(c)) continue;
      if (typeof c.name !== "string" || typeof c.image !== "string") continue;
      const info = parseImage(c.image);
      if (info) byName[c.name] = { ...info };
    }
    if (Object.keys(byName).length > 0) out[field] = byName;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
