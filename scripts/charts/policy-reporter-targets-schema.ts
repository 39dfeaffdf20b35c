/**
 * The `target` and `emailReports` parts of the policy-reporter chart's values schema: the keys
 * `kyverno-ts reporter` reads (packages/reporter/src/config/targets.ts, email.ts), per target kind;
 * the kinds it does not have (jira, s3, kinesis, securityHub, gcs) accepted only while unconfigured.
 */
import {
  any,
  bool,
  includeExclude,
  int,
  list,
  noEffect,
  obj,
  oneOf,
  type Schema,
  secretName,
  str,
  strList,
  strMap,
  unsupported,
  unsupportedList,
} from "./schema-builders.ts";

const SEVERITIES = ["", "info", "low", "medium", "high", "critical"];

/** Per supported kind, its own keys besides the common ones. */
const KIND_KEYS: Readonly<Record<string, Record<string, Schema>>> = {
  loki: { host: str(), path: str(), username: str(), password: str() },
  elasticsearch: {
    host: str(),
    index: str(),
    rotation: oneOf(["", "daily", "monthly", "annually", "none"]),
    typelessApi: bool(),
    username: str(),
    password: str(),
    apiKey: str(),
  },
  slack: { webhook: str(), channel: str() },
  discord: { webhook: str() },
  teams: { webhook: str() },
  webhook: {
    webhook: str(),
    keepalive: obj({ interval: { type: ["string", "integer"] }, params: strMap() }),
  },
  telegram: { token: str(), chatId: { type: ["string", "integer"] }, host: str() },
  googleChat: { webhook: str() },
  alertManager: { host: str() },
};

/** The supported target kinds. */
export const SUPPORTED_TARGETS = Object.keys(KIND_KEYS);

/** Upstream's target kinds we do not have, with the keys that configure them. */
const UNSUPPORTED_TARGETS: Readonly<Record<string, readonly string[]>> = {
  jira: ["host", "secretRef", "mountedSecret"],
  s3: ["endpoint", "bucket", "secretRef", "mountedSecret"],
  kinesis: ["endpoint", "streamName", "secretRef", "mountedSecret"],
  securityHub: ["endpoint", "accountId", "secretRef", "mountedSecret"],
  gcs: ["bucket", "credentials", "secretRef", "mountedSecret"],
};

const filter = (): Schema =>
  obj(
    {
      namespaces: obj({ include: strList(), exclude: strList(), selector: strMap() }),
      status: includeExclude(),
      severities: includeExclude(),
      priorities: includeExclude(),
      policies: includeExclude(),
      sources: includeExclude(),
      reportLabels: includeExclude(),
    },
    "Which results go to this target.",
  );

function common(): Record<string, Schema> {
  return {
    name: str(),
    minimumSeverity: oneOf(SEVERITIES),
    minimumPriority: str(),
    certificate: str("CA file in the pod (mount it with extraVolumes)."),
    skipTLS: bool(),
    secretRef: secretName("Secret (in the release namespace) whose keys override this target's fields."),
    mountedSecret: str("Path of a mounted JSON file whose keys override this target's fields."),
    sources: strList(),
    skipExistingOnStartup: bool(),
    sendResolved: bool(),
    customFields: strMap(),
    headers: strMap(),
    filter: filter(),
    delivery: obj({ timeoutMs: int(1), retries: int(0), backoffMs: int(0), maxBackoffMs: int(0) }),
  };
}

function supportedTarget(kind: string): Schema {
  const own = KIND_KEYS[kind] ?? {};
  const channel = obj({ ...common(), ...own });
  return obj({ ...common(), ...own, channels: list(channel) });
}

function unsupportedTarget(kind: string, keys: readonly string[]): Schema {
  const pinned: Record<string, Schema> = {};
  for (const key of keys) pinned[key] = unsupported("", `the ${kind} target (it must stay unconfigured)`);
  return {
    type: "object",
    description: `Not supported by kyverno-ts: the ${kind} target. Accepted only unconfigured, as in upstream's values.`,
    properties: { ...pinned, channels: unsupportedList(`channels of the ${kind} target`) },
  };
}

/** `target`. */
export function targetSchema(): Schema {
  const kinds: Record<string, Schema> = {};
  for (const kind of SUPPORTED_TARGETS) kinds[kind] = supportedTarget(kind);
  for (const [kind, keys] of Object.entries(UNSUPPORTED_TARGETS)) kinds[kind] = unsupportedTarget(kind, keys);
  return obj({
    crd: unsupported(false, "the TargetConfig CRD (configure targets in these values)"),
    ...kinds,
  });
}

function emailFilter(): Schema {
  return obj({ namespaces: includeExclude(), sources: includeExclude(), disableClusterReports: bool() });
}

function emailReport(): Schema {
  const cronJob = (key: string) =>
    noEffect(any(), `${key} of upstream's CronJob (the reporter schedules the report)`);
  return obj({
    enabled: bool(),
    schedule: str("Cron schedule."),
    to: strList(),
    filter: emailFilter(),
    channels: list(obj({ to: strList(), filter: emailFilter() })),
    activeDeadlineSeconds: cronJob("activeDeadlineSeconds"),
    backoffLimit: cronJob("backoffLimit"),
    ttlSecondsAfterFinished: cronJob("ttlSecondsAfterFinished"),
    restartPolicy: cronJob("restartPolicy"),
  });
}

/** `emailReports`. */
export function emailReportsSchema(): Schema {
  return obj({
    clusterName: str(),
    titlePrefix: str(),
    resources: noEffect(any(), "resources of upstream's CronJobs (the reporter sends the reports itself)"),
    smtp: obj({
      secret: secretName("Secret with host, port, username, password, from, encryption."),
      host: str(),
      port: int(1),
      username: str(),
      password: str(),
      from: str(),
      encryption: oneOf(["", "ssl", "tls", "starttls", "none"]),
      skipTLS: bool(),
      certificate: str(),
    }),
    graphAPI: {
      type: "object",
      properties: { enabled: unsupported(false, "email through the Microsoft Graph API (use smtp)") },
    },
    summary: emailReport(),
    violations: emailReport(),
  });
}

/** `ui.openIDConnect`, `ui.basicAuth`, access control: the dashboard's login keys the reporter reads. */
export function loginSchemas(): Record<string, Schema> {
  const accessControl = obj({ emails: strList(), groups: strList() });
  return {
    openIDConnect: obj({
      enabled: bool(),
      discoveryUrl: str(),
      callbackUrl: str(),
      clientId: str(),
      clientSecret: str(),
      groupClaim: str(),
      scopes: strList(),
      skipTLS: noEffect(bool(), "not applied yet by the reporter"),
      certificate: noEffect(str(), "not applied yet by the reporter"),
      secretRef: secretName("Secret with discoveryUrl, callbackUrl, clientId, clientSecret."),
    }),
    basicAuth: obj({ username: str(), password: str(), secretRef: secretName() }),
    boards: obj({ accessControl }),
    clusters: list(obj({ name: str(), accessControl })),
  };
}
