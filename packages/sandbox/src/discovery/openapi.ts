/**
 * A minimal OpenAPI v3 (`/openapi/v3`, `/openapi/v3/<api|apis/g>/<v>`): one PATCH operation per
 * resource carrying `x-kubernetes-group-version-kind` and the `fieldValidation` parameter, so kubectl
 * delegates validation to the server; no schemas are published, so `kubectl apply` computes strategic
 * merge patches of built-ins from its compiled-in types and merge patches for custom resources, as it
 * does against a real server. `/openapi/v2` is not served (kubectl falls back without it).
 */
import { createHash } from "node:crypto";
import type { JsonObject } from "@kyverno-ts/api";
import type { ResourceRegistry } from "../registry/registry.js";
import type { ResourceType } from "../registry/types.js";

function gvPath(group: string, version: string): string {
  return group === "" ? `api/${version}` : `apis/${group}/${version}`;
}

/** The OpenAPI v3 document of one group/version, or `undefined`. */
export function openApiDocument(
  registry: ResourceRegistry,
  group: string,
  version: string,
): JsonObject | undefined {
  const resources = registry.resourcesOf(group, version);
  if (resources.length === 0) return undefined;
  const paths: JsonObject = {};
  for (const r of resources) paths[itemPath(r)] = { patch: patchOperation(r) };
  return { openapi: "3.0.0", info: { title: "Kubernetes", version: "v1.32.0" }, paths, components: {} };
}

function itemPath(r: ResourceType): string {
  const base = `/${gvPath(r.group, r.version)}`;
  return r.namespaced ? `${base}/namespaces/{namespace}/${r.plural}/{name}` : `${base}/${r.plural}/{name}`;
}

function patchOperation(r: ResourceType): JsonObject {
  const content: JsonObject = {
    "application/json-patch+json": { schema: {} },
    "application/merge-patch+json": { schema: {} },
    "application/apply-patch+yaml": { schema: {} },
  };
  return {
    operationId: `patch${r.kind}`,
    parameters: [
      { name: "dryRun", in: "query", schema: { type: "string" } },
      { name: "fieldManager", in: "query", schema: { type: "string" } },
      { name: "fieldValidation", in: "query", schema: { type: "string" } },
      { name: "force", in: "query", schema: { type: "boolean" } },
    ],
    requestBody: { content, required: true },
    responses: { "200": { description: "OK" } },
    "x-kubernetes-action": "patch",
    "x-kubernetes-group-version-kind": { group: r.group, version: r.version, kind: r.kind },
  };
}

/** `/openapi/v3`: every served group/version with a content-hashed URL. */
export function openApiRoot(registry: ResourceRegistry): JsonObject {
  const paths: JsonObject = {};
  for (const g of registry.groups()) {
    for (const v of g.versions) {
      const doc = openApiDocument(registry, g.name, v);
      const hash = createHash("sha512").update(JSON.stringify(doc)).digest("hex").slice(0, 32).toUpperCase();
      const path = gvPath(g.name, v);
      paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${hash}` };
    }
  }
  return { paths };
}
