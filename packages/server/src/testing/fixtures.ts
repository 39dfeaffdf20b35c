/**
 * Builders shared by this package's tests: policies loaded through the real loader, AdmissionReview
 * bodies, a controllable clock and a recording logger. Not exported from the package.
 */
import type { JsonValue, Policy, PolicyException } from "@kyverno-ts/api";
import { loadPolicy, loadPolicyException } from "@kyverno-ts/api";
import type { ServerClock } from "../clock.js";
import type { Logger } from "../logger.js";

type Json = { [key: string]: JsonValue };

/** A clock whose time only moves when told to (or by `step` per `monotonic()` reading). */
export interface FakeClock extends ServerClock {
  /** Moves time forward, running the callbacks of `after` that fall due. */
  advance(ms: number): void;
}

/**
 * Creates a fake clock at `start` (wall time), advancing `step` ms on every `monotonic()` reading.
 * Wall and monotonic time move together; `after` callbacks run when `advance` reaches them.
 */
export function fakeClock(step = 0, start = new Date("2026-01-01T00:00:00Z")): FakeClock {
  let mono = 1000;
  const timers = new Set<{ at: number; callback: () => void }>();
  return {
    now: () => start.getTime() + mono,
    monotonic: () => {
      const t = mono;
      mono += step;
      return t;
    },
    after(ms, callback) {
      const timer = { at: mono + Math.max(0, ms), callback };
      timers.add(timer);
      return () => void timers.delete(timer);
    },
    advance(ms) {
      mono += ms;
      for (const timer of [...timers].sort((a, b) => a.at - b.at)) {
        if (timer.at > mono) continue;
        timers.delete(timer);
        timer.callback();
      }
    },
  };
}

/** One recorded log line. */
export interface LogLine {
  level: "debug" | "info" | "warn" | "error";
  fields: object;
  message: string;
}

/** A logger that keeps every line. */
export function recordingLogger(): Logger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at =
    (level: LogLine["level"]) =>
    (fields: object, message: string): void => {
      lines.push({ level, fields, message });
    };
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/** Loads a ClusterPolicy (or Policy) document through the real loader; throws on load errors. */
export function policy(doc: Json): Policy {
  const loaded = loadPolicy(doc, { file: "test" });
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => `${e.path}: ${e.message}`).join("; "));
  return loaded.value;
}

/** Loads a PolicyException document; throws on load errors. */
export function exception(doc: Json): PolicyException {
  const loaded = loadPolicyException(doc, { file: "test" });
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => `${e.path}: ${e.message}`).join("; "));
  return loaded.value;
}

/** A ClusterPolicy with one validate rule on Pods. */
export function podValidatePolicy(options: {
  name: string;
  rule?: string;
  action?: "Audit" | "Enforce";
  pattern?: JsonValue;
  message?: string;
  failurePolicy?: "Fail" | "Ignore";
  emitWarning?: boolean;
  allowExistingViolations?: boolean;
  deny?: JsonValue;
  operations?: string[];
  /** The rule's context entries (the loader rejects variables nothing declares). */
  context?: JsonValue[];
}): Policy {
  const validate: Json = { message: options.message ?? "privileged containers are not allowed" };
  if (options.deny !== undefined) validate.deny = options.deny;
  else
    validate.pattern = options.pattern ?? {
      spec: { containers: [{ "=(securityContext)": { "=(privileged)": "false" } }] },
    };
  if (options.allowExistingViolations !== undefined)
    validate.allowExistingViolations = options.allowExistingViolations;
  const resources: Json = { kinds: ["Pod"] };
  if (options.operations) resources.operations = options.operations;
  return policy({
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: options.name },
    spec: {
      validationFailureAction: options.action ?? "Enforce",
      background: true,
      ...(options.failurePolicy ? { failurePolicy: options.failurePolicy } : {}),
      ...(options.emitWarning !== undefined ? { emitWarning: options.emitWarning } : {}),
      rules: [
        {
          name: options.rule ?? "check-privileged",
          match: { any: [{ resources }] },
          ...(options.context ? { context: options.context } : {}),
          validate,
        },
      ],
    },
  });
}

/** A Pod; `privileged` sets the first container's securityContext. */
export function pod(
  options: { name?: string; namespace?: string; privileged?: boolean; labels?: Json } = {},
): Json {
  const container: Json = { name: "app", image: "nginx:1.25" };
  if (options.privileged !== undefined) container.securityContext = { privileged: options.privileged };
  const metadata: Json = { name: options.name ?? "x", namespace: options.namespace ?? "default" };
  if (options.labels) metadata.labels = options.labels;
  return { apiVersion: "v1", kind: "Pod", metadata, spec: { containers: [container] } };
}

/** An AdmissionReview v1 request body (as an object; `JSON.stringify` it for the handler). */
export function review(options: {
  uid?: string;
  operation?: "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
  object?: Json | null;
  oldObject?: Json | null;
  dryRun?: boolean;
  username?: string;
  groups?: string[];
  kind?: { group: string; version: string; kind: string };
}): Json {
  const obj = options.object === undefined ? pod() : options.object;
  const subject = (obj ?? options.oldObject ?? {}) as Json;
  const meta = (subject.metadata ?? {}) as Json;
  const request: Json = {
    uid: options.uid ?? "705ab4f5-6393-11e8-b7cc-42010a800002",
    kind: options.kind ?? { group: "", version: "v1", kind: "Pod" },
    resource: { group: "", version: "v1", resource: "pods" },
    operation: options.operation ?? "CREATE",
    userInfo: { username: options.username ?? "alice", groups: options.groups ?? ["system:authenticated"] },
    object: obj,
    oldObject: options.oldObject ?? null,
    dryRun: options.dryRun ?? false,
  };
  if (typeof meta.namespace === "string") request.namespace = meta.namespace;
  if (typeof meta.name === "string") request.name = meta.name;
  return { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request };
}

/** An admission answer that must be immediate (no policy reads external data); fails the test otherwise. */
export function immediate<T>(reply: T | Promise<T>): T {
  if (reply instanceof Promise) throw new Error("expected an immediate answer, got a promise");
  return reply;
}
