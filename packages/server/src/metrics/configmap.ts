/**
 * Where the `kyverno-metrics` ConfigMap comes from: the cluster (read once at start, as upstream
 * needs a restart for bucket and exposure changes) or, in standalone mode, a file.
 */
import { readFileSync } from "node:fs";
import { type KubeObject, parseDocuments } from "@kyverno-ts/api";
import type { KubeClient } from "@kyverno-ts/kube";
import { defaultMetricsConfig, type MetricsConfig, parseMetricsConfig } from "./config.js";

/** A parsed configuration with what was wrong in it (each problem names the source and key). */
export interface LoadedMetricsConfig {
  config: MetricsConfig;
  problems: string[];
}

/** The configuration of a ConfigMap object (`source` names it in problems). */
export function metricsConfigOf(object: unknown, source: string): LoadedMetricsConfig {
  const data =
    object !== null && typeof object === "object" && !Array.isArray(object)
      ? (object as { data?: unknown }).data
      : undefined;
  if (data === undefined || data === null) return { config: defaultMetricsConfig(), problems: [] };
  if (typeof data !== "object" || Array.isArray(data))
    return { config: defaultMetricsConfig(), problems: [`${source}: data: expected a map of strings`] };
  const strings = Object.fromEntries(
    Object.entries(data).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
  );
  return parseMetricsConfig(strings, source);
}

/** Reads a ConfigMap file (YAML or JSON, the first document). */
export function readMetricsConfigFile(file: string): LoadedMetricsConfig {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    return { config: defaultMetricsConfig(), problems: [`${file}: ${(error as Error).message}`] };
  }
  const parsed = parseDocuments(text, file);
  const first = parsed.documents[0]?.value;
  if (first === undefined) return { config: defaultMetricsConfig(), problems: [`${file}: no document`] };
  return metricsConfigOf(first, file);
}

/**
 * Reads the ConfigMap `namespace/name`: a missing one means the defaults (as upstream); a failed read
 * is a problem and the defaults.
 */
export async function loadMetricsConfig(
  client: KubeClient,
  namespace: string,
  name: string,
  signal?: AbortSignal,
): Promise<LoadedMetricsConfig> {
  const source = `ConfigMap ${namespace}/${name}`;
  let got: Awaited<ReturnType<KubeClient["get"]>>;
  try {
    got = await client.get(
      { apiVersion: "v1", kind: "ConfigMap", namespace, name },
      signal ? { signal } : {},
    );
  } catch (error) {
    return {
      config: defaultMetricsConfig(),
      problems: [`${source}: cannot be read (${(error as Error).message}); metrics use the defaults`],
    };
  }
  if (got.ok) return metricsConfigOf(got.value as KubeObject, source);
  if (got.status === 404) return { config: defaultMetricsConfig(), problems: [] };
  return {
    config: defaultMetricsConfig(),
    problems: [`${source}: cannot be read (${got.message}); metrics use the defaults`],
  };
}
