/** Server-side `kubectl get` columns of the built-in kinds, after kube-apiserver's printers (abridged). */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import type { PrinterColumn } from "../registry/types.js";
import { list, map, num, orNone, str } from "./cells.js";

const col = (
  name: string,
  compute: (o: JsonObject) => string | number | boolean | null,
  type = "string",
  priority = 0,
): PrinterColumn => ({ name, type, description: name, priority, compute });

/**
 * kube-apiserver's Event printer, for either API's field names: the last time seen is the series'
 * last observation, else the legacy `lastTimestamp`, else `eventTime` (Events written through
 * `events.k8s.io/v1` carry no legacy fields).
 */
function eventColumns(regarding: string, note: string, lastTimestamp: string): PrinterColumn[] {
  return [
    {
      // A time shown as its age ("12s"), as kube-apiserver's printer does.
      name: "Last Seen",
      type: "date",
      description: "Last Seen",
      priority: 0,
      extract: (o) => str(o, "series.lastObservedTime") || str(o, lastTimestamp) || str(o, "eventTime"),
    },
    col("Type", (o) => str(o, "type")),
    col("Reason", (o) => str(o, "reason")),
    col("Object", (o) => `${str(o, `${regarding}.kind`).toLowerCase()}/${str(o, `${regarding}.name`)}`),
    col("Message", (o) => str(o, note)),
  ];
}

/** The `Name` column every table starts with. */
export const NAME_COLUMN: PrinterColumn = {
  name: "Name",
  type: "string",
  format: "name",
  description:
    "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically.",
  priority: 0,
  jsonPath: ".metadata.name",
  extract: (o) => str(o, "metadata.name"),
};

/** The `Age` column (creation time as a human duration). */
export const AGE_COLUMN: PrinterColumn = {
  name: "Age",
  type: "date",
  description: "CreationTimestamp is a timestamp representing the server time when this object was created.",
  priority: 0,
  jsonPath: ".metadata.creationTimestamp",
  extract: (o) => str(o, "metadata.creationTimestamp"),
};

const CREATED_AT: PrinterColumn = {
  ...AGE_COLUMN,
  name: "Created At",
  format: "date-time",
  compute: (o) => str(o, "metadata.creationTimestamp"),
};

const count = (o: JsonObject, ...paths: string[]): number =>
  paths.reduce((n, p) => n + Object.keys(map(o, p)).length, 0);

const podReady = (o: JsonObject): string => {
  const statuses = list(o, "status.containerStatuses");
  const ready = statuses.filter((s) => (s as JsonObject).ready === true).length;
  return `${ready}/${list(o, "spec.containers").length}`;
};

const podRestarts = (o: JsonObject): number =>
  list(o, "status.containerStatuses").reduce<number>((n, s) => n + num(s, "restartCount"), 0);

const podStatus = (o: JsonObject): string => {
  if (str(o, "metadata.deletionTimestamp") !== "") return "Terminating";
  // As kubectl's printer: a waiting or failed container's reason wins over the phase.
  const init = list(o, "status.initContainerStatuses");
  const waitingInit = init.findIndex((s) => str(s, "state.terminated.reason") !== "Completed");
  if (waitingInit >= 0 && str(o, "status.phase") === "Pending") {
    const reason = str(init[waitingInit], "state.waiting.reason");
    return reason !== "" && reason !== "PodInitializing"
      ? `Init:${reason}`
      : `Init:${waitingInit}/${init.length}`;
  }
  for (const s of list(o, "status.containerStatuses")) {
    const reason =
      str(s, "state.waiting.reason") ||
      (str(s, "state.terminated.reason") === "Completed" ? "" : str(s, "state.terminated.reason"));
    if (reason !== "") return reason;
  }
  return str(o, "status.reason") || str(o, "status.phase") || "Pending";
};

/** `ip:port` of every ready address, as kubectl's Endpoints column (at most three, then "+ N more..."). */
const endpointAddresses = (o: JsonObject): string => {
  const all = list(o, "subsets").flatMap((subset) =>
    list(subset, "addresses").flatMap((a) => {
      const ports = list(subset, "ports");
      return ports.length === 0 ? [str(a, "ip")] : ports.map((p) => `${str(a, "ip")}:${num(p, "port")}`);
    }),
  );
  if (all.length === 0) return "<none>";
  return all.length > 3 ? `${all.slice(0, 3).join(",")} + ${all.length - 3} more...` : all.join(",");
};

const ports = (o: JsonObject): string =>
  orNone(
    list(o, "spec.ports")
      .map(
        (p) =>
          `${num(p, "port")}${num(p, "nodePort") ? `:${num(p, "nodePort")}` : ""}/${str(p, "protocol") || "TCP"}`,
      )
      .join(","),
  );

const jobStatus = (o: JsonObject): string => {
  const conditions = list(o, "status.conditions") as JsonValue[];
  const has = (type: string): boolean =>
    conditions.some((c) => str(c, "type") === type && str(c, "status") === "True");
  if (has("Complete")) return "Complete";
  if (has("Failed")) return "Failed";
  if (str(o, "metadata.deletionTimestamp") !== "") return "Terminating";
  return "Running";
};

const selector = (o: JsonObject, path: string): string =>
  orNone(
    Object.entries(map(o, path))
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(","),
  );

/** Columns by `group/Kind` (core kinds by `Kind`); kinds not listed get Name + Created At. */
export const BUILTIN_COLUMNS: Readonly<Record<string, readonly PrinterColumn[]>> = {
  Namespace: [NAME_COLUMN, col("Status", (o) => str(o, "status.phase")), AGE_COLUMN],
  Pod: [
    NAME_COLUMN,
    col("Ready", podReady),
    col("Status", podStatus),
    col("Restarts", podRestarts, "string"),
    AGE_COLUMN,
    col("IP", (o) => orNone(str(o, "status.podIP")), "string", 1),
    col("Node", (o) => orNone(str(o, "spec.nodeName")), "string", 1),
  ],
  ConfigMap: [NAME_COLUMN, col("Data", (o) => count(o, "data", "binaryData"), "integer"), AGE_COLUMN],
  Secret: [
    NAME_COLUMN,
    col("Type", (o) => str(o, "type")),
    col("Data", (o) => count(o, "data"), "integer"),
    AGE_COLUMN,
  ],
  Service: [
    NAME_COLUMN,
    col("Type", (o) => str(o, "spec.type") || "ClusterIP"),
    col("Cluster-IP", (o) => orNone(str(o, "spec.clusterIP"))),
    col("External-IP", (o) => orNone(list(o, "spec.externalIPs").join(","))),
    col("Port(s)", ports),
    AGE_COLUMN,
    col("Selector", (o) => selector(o, "spec.selector"), "string", 1),
  ],
  Endpoints: [NAME_COLUMN, col("Endpoints", endpointAddresses), AGE_COLUMN],
  ServiceAccount: [NAME_COLUMN, col("Secrets", (o) => list(o, "secrets").length, "integer"), AGE_COLUMN],
  Event: eventColumns("involvedObject", "message", "lastTimestamp"),
  "events.k8s.io/Event": eventColumns("regarding", "note", "deprecatedLastTimestamp"),
  "apps/Deployment": [
    NAME_COLUMN,
    col("Ready", (o) => `${num(o, "status.readyReplicas")}/${num(o, "spec.replicas")}`),
    col("Up-to-date", (o) => num(o, "status.updatedReplicas"), "integer"),
    col("Available", (o) => num(o, "status.availableReplicas"), "integer"),
    AGE_COLUMN,
  ],
  "apps/ReplicaSet": [
    NAME_COLUMN,
    col("Desired", (o) => num(o, "spec.replicas"), "integer"),
    col("Current", (o) => num(o, "status.replicas"), "integer"),
    col("Ready", (o) => num(o, "status.readyReplicas"), "integer"),
    AGE_COLUMN,
  ],
  "apps/StatefulSet": [
    NAME_COLUMN,
    col("Ready", (o) => `${num(o, "status.readyReplicas")}/${num(o, "spec.replicas")}`),
    AGE_COLUMN,
  ],
  "apps/DaemonSet": [
    NAME_COLUMN,
    col("Desired", (o) => num(o, "status.desiredNumberScheduled"), "integer"),
    col("Current", (o) => num(o, "status.currentNumberScheduled"), "integer"),
    col("Ready", (o) => num(o, "status.numberReady"), "integer"),
    col("Up-to-date", (o) => num(o, "status.updatedNumberScheduled"), "integer"),
    col("Available", (o) => num(o, "status.numberAvailable"), "integer"),
    col("Node Selector", (o) => selector(o, "spec.template.spec.nodeSelector")),
    AGE_COLUMN,
  ],
  "batch/Job": [
    NAME_COLUMN,
    col("Status", jobStatus),
    col("Completions", (o) => `${num(o, "status.succeeded")}/${num(o, "spec.completions") || 1}`),
    AGE_COLUMN,
  ],
  "batch/CronJob": [
    NAME_COLUMN,
    col("Schedule", (o) => str(o, "spec.schedule")),
    col("Suspend", (o) => (map(o, "spec").suspend === true ? "True" : "False")),
    col("Active", (o) => list(o, "status.active").length, "integer"),
    col("Last Schedule", (o) => orNone(str(o, "status.lastScheduleTime"))),
    AGE_COLUMN,
  ],
  "coordination.k8s.io/Lease": [NAME_COLUMN, col("Holder", (o) => str(o, "spec.holderIdentity")), AGE_COLUMN],
  "rbac.authorization.k8s.io/Role": [NAME_COLUMN, CREATED_AT],
  "rbac.authorization.k8s.io/ClusterRole": [NAME_COLUMN, CREATED_AT],
  "rbac.authorization.k8s.io/RoleBinding": [
    NAME_COLUMN,
    col("Role", (o) => `${str(o, "roleRef.kind")}/${str(o, "roleRef.name")}`),
    AGE_COLUMN,
  ],
  "rbac.authorization.k8s.io/ClusterRoleBinding": [
    NAME_COLUMN,
    col("Role", (o) => `${str(o, "roleRef.kind")}/${str(o, "roleRef.name")}`),
    AGE_COLUMN,
  ],
  "admissionregistration.k8s.io/ValidatingWebhookConfiguration": [
    NAME_COLUMN,
    col("Webhooks", (o) => list(o, "webhooks").length, "integer"),
    AGE_COLUMN,
  ],
  "admissionregistration.k8s.io/MutatingWebhookConfiguration": [
    NAME_COLUMN,
    col("Webhooks", (o) => list(o, "webhooks").length, "integer"),
    AGE_COLUMN,
  ],
};

/** The default columns of a built-in kind without its own printer. */
export const DEFAULT_BUILTIN_COLUMNS: readonly PrinterColumn[] = [NAME_COLUMN, CREATED_AT];

/** The default columns of a custom resource without `additionalPrinterColumns`. */
export const DEFAULT_CUSTOM_COLUMNS: readonly PrinterColumn[] = [NAME_COLUMN, AGE_COLUMN];
