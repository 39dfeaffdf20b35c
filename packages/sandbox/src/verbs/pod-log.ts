/**
 * `GET …/pods/<name>/log`: the output of one container, as the kubelet serves it through the API
 * server (`kubectl logs`). The sandbox runs no containers; a `PodLogSource` (a test kubelet that does)
 * supplies the text. `follow` answers what there is and ends the stream.
 */
import type { JsonObject } from "@kyverno-ts/api";
import { badRequest } from "../http/status.js";
import { asObject, metaString } from "../objects/meta.js";
import type { ApiEnv, ResourceRequest } from "./context.js";
import { currentObject } from "./update.js";

/** What `pods/log` asks the log source for. */
export interface PodLogRequest {
  namespace: string;
  pod: string;
  container: string;
  /** The output of the previous (restarted) instance of the container. */
  previous: boolean;
}

/** Supplies a container's captured output, or `undefined` when it has not started (no output yet). */
export type PodLogSource = (request: PodLogRequest) => string | undefined;

function containerNames(pod: JsonObject): string[] {
  const spec = asObject(pod.spec) ?? {};
  const containers = Array.isArray(spec.containers) ? spec.containers : [];
  return containers.map((c) => String(asObject(c)?.name ?? ""));
}

function tail(text: string, lines: number): string {
  const all = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
  if (text === "" || lines >= all.length) return text;
  return lines <= 0 ? "" : `${all.slice(all.length - lines).join("\n")}\n`;
}

/** Serves the log of a Pod's container (`container`, `previous`, `tailLines`, `limitBytes`). */
export function handlePodLog(env: ApiEnv, request: ResourceRequest, source: PodLogSource | undefined): void {
  const pod = currentObject(env, request);
  const name = metaString(pod, "name");
  const names = containerNames(pod);
  const asked = request.query.get("container");
  let container = asked ?? "";
  if (asked === null) {
    if (names.length !== 1)
      throw badRequest(
        `a container name must be specified for pod ${name}, choose one of: [${names.join(" ")}]`,
      );
    container = names[0] ?? "";
  } else if (!names.includes(asked)) throw badRequest(`container ${asked} is not valid for pod ${name}`);
  const previous = request.query.get("previous") === "true";
  const text = source?.({ namespace: request.namespace, pod: name, container, previous });
  if (text === undefined) {
    if (previous) throw badRequest(`previous terminated container "${container}" in pod "${name}" not found`);
    throw badRequest(`container "${container}" in pod "${name}" is waiting to start: ContainerCreating`);
  }
  let body = text;
  const tailLines = request.query.get("tailLines");
  if (tailLines !== null && /^-?\d+$/.test(tailLines)) body = tail(body, Number(tailLines));
  const limitBytes = request.query.get("limitBytes");
  if (limitBytes !== null && /^\d+$/.test(limitBytes))
    body = Buffer.from(body).subarray(0, Number(limitBytes)).toString("utf8");
  request.res.writeHead(200, { "Content-Type": "text/plain", "Content-Length": Buffer.byteLength(body) });
  request.res.end(body);
}
