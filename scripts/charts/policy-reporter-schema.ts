/**
 * The values schema of `charts/policy-reporter` (written to its `values.schema.json` by
 * `generate.ts`). It follows Policy Reporter's value names (the reference chart's values.yaml): what
 * `kyverno-ts reporter` supports is typed; what has no effect here (the separate UI and plugin
 * deployments, Go runtime settings) is accepted and says so; what we do not have is pinned to its
 * upstream default, so asking for it fails `helm install` with the key's path.
 */

import { emailReportsSchema, loginSchemas, targetSchema } from "./policy-reporter-targets-schema.ts";
import {
  any,
  bool,
  includeExclude,
  int,
  list,
  map,
  noEffect,
  obj,
  oneOf,
  openObj,
  optionalStr,
  type Schema,
  secretName,
  str,
  strList,
  strMap,
  unsupported,
  unsupportedList,
} from "./schema-builders.ts";

/** Where the Policy Reporter chart lives, relative to the repository root. */
export const POLICY_REPORTER_CHART = "charts/policy-reporter";

const port = () => int(1);
const ingress = (what: string): Schema =>
  obj(
    {
      enabled: bool(),
      className: str(),
      labels: strMap(),
      annotations: strMap(),
      hosts: {
        type: ["array", "null"],
        items: obj({
          host: str(),
          paths: list(
            obj({
              path: str(),
              pathType: oneOf(["Prefix", "Exact", "ImplementationSpecific"]),
            }),
          ),
        }),
      },
      tls: list(obj({ secretName: str(), hosts: strList() })),
      port: noEffect(any(), "the dashboard is served on the reporter's own port"),
    },
    what,
  );

function metricsSchema(): Schema {
  const filter = obj({
    namespaces: includeExclude(),
    policies: includeExclude(),
    severities: includeExclude(),
    status: includeExclude(),
    sources: includeExclude(),
    kinds: includeExclude(),
  });
  return obj({
    enabled: bool("Serve /metrics (monitoring.enabled switches it on too)."),
    port: int(1, "Port of /metrics (name `metrics`), apart from the API port."),
    mode: oneOf(["detailed", "simple", "custom"]),
    customLabels: list(
      oneOf([
        "namespace",
        "rule",
        "policy",
        "report",
        "kind",
        "name",
        "status",
        "severity",
        "category",
        "source",
      ]),
    ),
    filter,
  });
}

function sourceFilter(): Schema {
  return obj({
    selector: obj({ sources: strList() }),
    uncontrolledOnly: bool(),
    disableClusterReports: bool(),
    kinds: includeExclude(),
    namespaces: includeExclude(),
    sources: includeExclude(),
  });
}

function databaseSchema(): Schema {
  const pool = (key: string) => noEffect(any(), `${key} (the reporter's pool has its own limits)`);
  return obj({
    type: oneOf(["", "sqlite", "postgres", "mysql", "mariadb"], '"" or sqlite: SQLite in the pod.'),
    database: str(),
    username: str(),
    password: str(),
    host: str(),
    enableSSL: bool(),
    dsn: str(),
    maxOpenConnections: int(1),
    maxIdleConnections: pool("maxIdleConnections"),
    connectionMaxLifetime: pool("connectionMaxLifetime"),
    connectionMaxIdleTime: pool("connectionMaxIdleTime"),
    timeout: pool("timeout"),
    metrics: noEffect(any(), "database metrics of the Go client"),
    secretRef: secretName("Secret with username, password, host, dsn, database."),
    mountedSecret: str(),
  });
}

function redisSchema(): Schema {
  return obj({
    enabled: bool(),
    address: str("host:port"),
    database: int(0),
    prefix: str(),
    username: str(),
    password: str(),
    certificate: str(),
    clientCert: str(),
    clientKey: str(),
    secretRef: secretName("Secret with username and password."),
    skipTLS: bool(),
  });
}

function uiSchema(): Schema {
  const login = loginSchemas();
  const separate = (key: string) =>
    noEffect(any(), `${key} of upstream's separate UI deployment (the reporter serves the dashboard)`);
  const noEffectKeys = [
    "image",
    "crds",
    "replicaCount",
    "priorityClassName",
    "logging",
    "imagePullSecrets",
    "serviceAccount",
    "podAnnotations",
    "podLabels",
    "selectorLabels",
    "updateStrategy",
    "revisionHistoryLimit",
    "podSecurityContext",
    "envVars",
    "tmpVolume",
    "rbac",
    "securityContext",
    "livenessProbe",
    "readinessProbe",
    "service",
    "httproute",
    "networkPolicy",
    "resources",
    "podDisruptionBudget",
    "nodeSelector",
    "tolerations",
    "affinity",
    "topologySpreadConstraints",
    "extraVolumes",
    "extraConfig",
  ];
  const separateKeys: Record<string, Schema> = {};
  for (const key of noEffectKeys) separateKeys[key] = separate(key);
  return obj({
    enabled: bool("Serve the dashboard at / of the reporter's port."),
    name: str("This cluster's name."),
    ...login,
    server: openObj(
      {
        sessions: openObj(
          { maxAge: int(60, "Session lifetime (seconds).") },
          "storage and tempDir: no effect.",
        ),
      },
      "port, cors, overwriteHost: no effect (the reporter's server).",
    ),
    oauth: openObj({ enabled: unsupported(false, "OAuth2 providers (use ui.openIDConnect)") }),
    banner: unsupported("", "a banner"),
    logo: openObj({
      path: unsupported("", "a custom logo"),
      disabled: unsupported(false, "hiding the logo"),
    }),
    displayMode: unsupported("", "a fixed display mode (the dashboard follows the browser's setting)"),
    customBoards: unsupportedList("custom boards"),
    sources: unsupportedList("per-source UI settings"),
    sidecarContainers: { type: "object", maxProperties: 0, description: "Not supported by kyverno-ts." },
    ingress: ingress("An Ingress to the dashboard: routes to the reporter's Service."),
    ...separateKeys,
  });
}

function monitoringSchema(): Schema {
  return obj({
    enabled: bool("Create the ServiceMonitor and serve metrics."),
    annotations: strMap(),
    serviceMonitor: obj({
      enabled: bool(),
      honorLabels: bool(),
      namespace: optionalStr(),
      labels: strMap(),
      relabelings: list(),
      metricRelabelings: list(),
      namespaceSelector: map(),
      scrapeTimeout: optionalStr(),
      interval: optionalStr(),
      secure: bool(),
      tlsConfig: map(),
    }),
    grafana: openObj(
      {
        namespace: optionalStr(),
        dashboards: openObj({
          enabled: bool(
            "Ship kyverno-ts's Policy Reporter dashboard in a ConfigMap (with monitoring.enabled).",
          ),
          label: { type: "string", minLength: 1 },
          value: { type: "string" },
        }),
        folder: openObj({ annotation: { type: "string", minLength: 1 }, name: { type: "string" } }),
        grafanaDashboard: openObj({ enabled: unsupported(false, "GrafanaDashboard resources") }),
      },
      "The other grafana keys (upstream's dashboard layout, datasource and multicluster settings) have no effect.",
    ),
    policyReportDetails: noEffect(any(), "layout of upstream's Grafana dashboards"),
    clusterPolicyReportDetails: noEffect(any(), "layout of upstream's Grafana dashboards"),
    policyReportOverview: noEffect(any(), "layout of upstream's Grafana dashboards"),
  });
}

function pluginSchema(): Schema {
  return obj({
    kyverno: openObj(
      {
        enabled: noEffect(bool(), "the reporter serves the Kyverno policy details itself"),
        blockReports: openObj({
          enabled: unsupported(false, "reports from Kyverno's events (blockReports)"),
        }),
      },
      "Accepted, no effect: the Kyverno views are built into the reporter and its dashboard.",
    ),
    trivy: openObj({ enabled: unsupported(false, "the Trivy plugin") }),
  });
}

/** The chart's whole values schema. */
export function policyReporterSchema(): Schema {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "policy-reporter (kyverno-ts) values",
    ...obj({
      nameOverride: str(),
      fullnameOverride: str(),
      namespaceOverride: str(),
      apiVersionOverride: obj({
        podDisruptionBudget: noEffect(any(), "the PodDisruptionBudget is policy/v1"),
      }),
      image: obj({
        registry: optionalStr(),
        repository: str(),
        pullPolicy: oneOf(["Always", "IfNotPresent", "Never"]),
        tag: optionalStr(),
      }),
      imagePullSecrets: list(),
      priorityClassName: str(),
      replicaCount: int(0, "More than one needs leader election."),
      revisionHistoryLimit: int(0),
      updateStrategy: map(),
      port: obj({ name: str(), number: port() }),
      annotations: strMap(),
      rbac: obj({ enabled: bool() }),
      serviceAccount: obj({ create: bool(), automount: bool(), annotations: strMap(), name: str() }),
      service: obj({ enabled: bool(), type: str(), port: port(), annotations: strMap(), labels: strMap() }),
      podSecurityContext: map(),
      securityContext: map(),
      podAnnotations: strMap(),
      podLabels: strMap(),
      selectorLabels: strMap(),
      resources: map(),
      networkPolicy: obj({ enabled: bool(), egress: list(), ingress: list() }),
      ingress: ingress("An Ingress to the API and the dashboard."),
      httproute: obj({
        enabled: bool(),
        labels: strMap(),
        annotations: strMap(),
        parentRefs: list(),
        hostnames: strList(),
        rules: list(),
      }),
      logging: obj({ server: bool(), encoding: oneOf(["console", "json"]), logLevel: int(-1) }),
      rest: obj({ enabled: noEffect(bool(), "the API is always served") }),
      metrics: metricsSchema(),
      profiling: obj({ enabled: unsupported(false, "pprof profiling") }),
      worker: int(1),
      reportFilter: obj({ namespaces: includeExclude(), disableClusterReports: bool() }),
      sourceConfig: unsupportedList("custom result IDs per source (sourceConfig)"),
      sourceFilters: list(sourceFilter()),
      global: openObj({ labels: strMap(), image: openObj({ registry: optionalStr() }) }),
      basicAuth: obj({ username: str(), password: str(), secretRef: secretName() }),
      emailReports: emailReportsSchema(),
      existingTargetConfig: openObj({
        enabled: unsupported(
          false,
          "a configuration from an existing Secret (the chart renders it from values)",
        ),
      }),
      target: targetSchema(),
      leaderElection: obj({
        enabled: { type: ["boolean", "null"], description: "null: on exactly when replicaCount > 1." },
        releaseOnCancel: noEffect(bool(), "the Lease is always released on shutdown"),
        leaseDuration: int(1),
        renewDeadline: int(1),
        retryPeriod: int(1),
      }),
      redis: redisSchema(),
      database: databaseSchema(),
      periodicSync: obj({
        enabled: noEffect(bool(), "the reports are watched and relisted when the watch expires"),
        interval: noEffect(any(), "see periodicSync.enabled"),
      }),
      autoMemoryLimit: obj({
        enabled: noEffect(bool(), "a Go runtime setting"),
        ratio: noEffect(any(), "a Go runtime setting"),
      }),
      podDisruptionBudget: obj({
        minAvailable: { type: ["integer", "string", "null"] },
        maxUnavailable: { type: ["integer", "string", "null"] },
      }),
      nodeSelector: strMap(),
      tolerations: list(),
      affinity: map(),
      topologySpreadConstraints: list(),
      livenessProbe: map(),
      readinessProbe: map(),
      extraVolumes: obj({ volumeMounts: list(), volumes: list() }),
      sqliteVolume: map(),
      envVars: list(),
      tmpVolume: map(),
      ui: uiSchema(),
      plugin: pluginSchema(),
      kyvernoPlugin: openObj({ enabled: noEffect(bool(), "the Kyverno views are built in") }),
      monitoring: monitoringSchema(),
      extraManifests: list(),
      extraConfig: map({}, "Merged into the reporter's configuration file."),
      // Set by a parent chart's `condition` (kyverno-ts: policyReporter.enabled).
      enabled: bool(),
    }),
  };
}
