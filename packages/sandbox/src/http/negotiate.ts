/** Content negotiation on `Accept`: plain objects, server-side Tables, or PartialObjectMetadata. */
import { notAcceptable } from "./status.js";

/** How objects are rendered in a response. */
export type Representation = "object" | "table" | "metadata";

/**
 * Picks the first representation the client accepts, in its order of preference; only JSON is
 * produced (a client that accepts nothing else, e.g. protobuf only, gets a 406).
 */
export function negotiate(accept: string | undefined): Representation {
  if (accept === undefined || accept.trim() === "") return "object";
  for (const range of accept.split(",")) {
    const [type, ...params] = range.split(";").map((p) => p.trim());
    const media = (type ?? "").toLowerCase();
    const p = new Map(params.map((kv) => kv.split("=").map((x) => x.trim()) as [string, string]));
    if (
      media !== "application/json" &&
      media !== "*/*" &&
      media !== "application/*" &&
      media !== "application/yaml"
    )
      continue;
    const as = p.get("as");
    if (as === undefined) return "object";
    if (p.get("g") !== "meta.k8s.io") continue;
    if (as === "Table") return "table";
    if (as === "PartialObjectMetadata" || as === "PartialObjectMetadataList") return "metadata";
  }
  throw notAcceptable();
}
