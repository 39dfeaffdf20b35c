/** Kubernetes object shapes shared by every kind the project loads: metadata and any object. */
import type { JsonValue } from "./json.js";

/** Standard Kubernetes object metadata, only the fields the engine reads. */
export interface ObjectMeta {
  name?: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [key: string]: JsonValue | undefined;
}

/** A Kubernetes object as the engine sees it: any JSON object with apiVersion/kind/metadata. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [key: string]: JsonValue | ObjectMeta | undefined;
}
