/**
 * Every command-line flag of the controllers, described once: upstream's flags of the admission,
 * background, cleanup and reports controllers (installation/customization.md "Container Flags", with
 * upstream's spelling and default) and kyverno-ts's own. The parsers (`parse.ts`), each subcommand's
 * `--help` and docs/flags.md are derived from this table.
 *
 * A flag is implemented in the controllers listed in `implemented`; elsewhere among `controllers` it is
 * accepted and has no effect, and a start-up warning says why (`reason`) unless it was given the value
 * kyverno-ts behaves as anyway (`inert`). Self-contained (no imports) so that scripts can load it with
 * Node's type stripping.
 */

/** The controllers (kyverno-ts subcommands) that take flags. */
export type ControllerName = "admission" | "background" | "cleanup" | "reports";

/** Value types, as Go's flag package parses them. */
export type FlagType = "bool" | "string" | "int" | "float" | "duration";

/** One flag. */
export interface FlagSpec {
  /** The spelling, without dashes (Go accepts `-name` and `--name`). */
  readonly name: string;
  readonly type: FlagType;
  /** The default as upstream documents it ("" for none); the value a parser returns when not given. */
  readonly default: string;
  /** An environment variable read when the flag is not given (before `default`). */
  readonly env?: string;
  /** The controllers that accept it (upstream's A, B, C, R). */
  readonly controllers: readonly ControllerName[];
  readonly help: string;
  /** Upstream's flag, or one kyverno-ts adds. */
  readonly origin: "upstream" | "kyverno-ts";
  /** Where the flag takes effect; a subset of `controllers`. */
  readonly implemented: readonly ControllerName[];
  /** Why it has no effect in the other controllers (finishes "… has no effect in kyverno-ts because"). */
  readonly reason?: string;
  /** A value that asks for what kyverno-ts does anyway: given with it, the flag prints no warning. */
  readonly inert?: string;
  /** Other spellings accepted (kyverno-ts's earlier names). */
  readonly aliases?: readonly string[];
  /** The value's name in `--help` (`<n>`, `<file>`). */
  readonly value?: string;
  /** Repeatable: every occurrence is kept (otherwise the last one wins, as in Go). */
  readonly repeatable?: boolean;
}

const ALL: readonly ControllerName[] = ["admission", "background", "cleanup", "reports"];
const A: readonly ControllerName[] = ["admission"];
const AB: readonly ControllerName[] = ["admission", "background"];
const R: readonly ControllerName[] = ["reports"];
const AR: readonly ControllerName[] = ["admission", "reports"];
const AC: readonly ControllerName[] = ["admission", "cleanup"];
const ABR: readonly ControllerName[] = ["admission", "background", "reports"];
const ACR: readonly ControllerName[] = ["admission", "cleanup", "reports"];
const NONE: readonly ControllerName[] = [];

type Entry = Omit<FlagSpec, "origin">;
const upstream = (e: Entry): FlagSpec => ({ ...e, origin: "upstream" });
const own = (e: Entry): FlagSpec => ({ ...e, origin: "kyverno-ts" });

const KLOG =
  "logs go to stderr only, in the shape --loggingFormat selects; klog's file and header options are not used";
const OTEL = "there is no OpenTelemetry export: metrics are served for Prometheus scraping only";
const TRACING = "there is no tracing (OpenTelemetry) yet";
const REGISTRY = "image registries are not accessed yet (no verifyImages or image registry context)";
const SIGSTORE = "image signatures are not verified yet (no verifyImages)";
const EVENTS = "the cleanup controller writes its few Events with the default limits";
const PROFILING = "there is no Go pprof server; profile with Node's --cpu-prof or --inspect";
const NOT_BUILT = "this controller does not implement it yet";

/** Upstream's flags, in upstream's (alphabetical) order. */
// biome-ignore format: one line per flag, read as a table
const UPSTREAM: readonly FlagSpec[] = [
  upstream({ name: "add_dir_header", type: "bool", default: "false", controllers: ALL, help: "If true, adds the file directory to the header of the log messages.", implemented: NONE, reason: KLOG, inert: "false" }),
  upstream({ name: "admissionReports", type: "bool", default: "true", controllers: AR, help: "Enable or disable admission reports (audit results of admission requests, merged into PolicyReports).", implemented: AR }),
  upstream({ name: "aggregateReports", type: "bool", default: "true", controllers: R, help: "Enable or disable the aggregation of admission reports into PolicyReports.", implemented: NONE, reason: "admission results are always merged into PolicyReports", inert: "true" }),
  upstream({ name: "aggregationWorkers", type: "int", default: "10", controllers: R, help: "Number of workers aggregating admission reports.", implemented: NONE, reason: "admission reports are merged by the scan workers (--backgroundScanWorkers)" }),
  upstream({ name: "allowedResults", type: "string", default: "pass,fail,error,warn,skip", controllers: ABR, help: "Comma-separated result types stored in reports.", implemented: NONE, reason: "every result type is reported", inert: "pass,fail,error,warn,skip" }),
  upstream({ name: "allowHTTPInNamespacedPolicies", type: "bool", default: "false", controllers: ABR, help: "Allow HTTP calls from namespaced CEL policies.", implemented: NONE, reason: "there is no allow/block list for policies' HTTP calls yet", inert: "false" }),
  upstream({ name: "allowInsecureRegistry", type: "bool", default: "false", controllers: ABR, help: "Whether to allow insecure connections to registries (testing only).", implemented: NONE, reason: REGISTRY, inert: "false" }),
  upstream({ name: "alsologtostderr", type: "bool", default: "false", controllers: ALL, help: "Log to standard error as well as files (no effect when -logtostderr=true).", implemented: NONE, reason: KLOG, inert: "false" }),
  upstream({ name: "autoUpdateWebhooks", type: "bool", default: "true", controllers: A, help: "Set to false to disable the automatic configuration of the webhooks from the policies.", implemented: NONE, reason: "webhook configurations always follow the policies", inert: "true" }),
  upstream({ name: "backgroundScan", type: "bool", default: "true", controllers: R, help: "Enable or disable background scans.", implemented: NONE, reason: "background scans always run (every --backgroundScanInterval)", inert: "true" }),
  upstream({ name: "backgroundScanInterval", type: "duration", default: "1h", controllers: R, help: "Interval of the periodic background scans, a Go duration (at least 1s).", implemented: R, value: "<duration>" }),
  upstream({ name: "backgroundScanWorkers", type: "int", default: "2", controllers: R, help: "Number of background scan workers (1-1000).", implemented: R, value: "<n>" }),
  upstream({ name: "backgroundServiceAccountName", type: "string", default: "", controllers: A, help: "The background controller's user (system:serviceaccount:<namespace>:<name>); generate and mutate-existing policies are checked against its permissions (default: kyverno-background-controller in --namespace).", implemented: A }),
  upstream({ name: "caSecretName", type: "string", default: "", controllers: AC, help: "Name of the Secret holding the root CA (default: <service>.<namespace>.svc.kyverno-tls-ca).", implemented: NONE, reason: "the Secrets are always named <service>.<namespace>.svc.kyverno-tls-ca / -tls-pair" }),
  upstream({ name: "cleanupServerHost", type: "string", default: "", controllers: ["cleanup"], help: "Address the cleanup server's webhooks are called on (hostNetwork only).", implemented: NONE, reason: NOT_BUILT }),
  upstream({ name: "cleanupServerPort", type: "int", default: "9443", controllers: ["cleanup"], help: "Port of the cleanup server.", implemented: ["cleanup"], value: "<port>" }),
  upstream({ name: "clientRateLimitBurst", type: "int", default: "300", controllers: ALL, help: "Maximum burst of requests to the API server.", implemented: ALL, value: "<n>" }),
  upstream({ name: "clientRateLimitQPS", type: "float", default: "300", controllers: ALL, help: "Maximum requests per second to the API server.", implemented: ALL, value: "<n>" }),
  upstream({ name: "disableCertManagerController", type: "bool", default: "false", controllers: AC, help: "Disable the in-process certificate manager (certificates provided by cert-manager).", implemented: NONE, reason: "the admission controller always manages its certificates", inert: "false" }),
  upstream({ name: "disableMetrics", type: "bool", default: "false", controllers: ALL, help: "Set to true to serve no metrics.", implemented: A, reason: "the metrics port also serves the readiness and liveness probes", inert: "false" }),
  upstream({ name: "dumpPatches", type: "bool", default: "false", controllers: A, help: "Log the full patch of each mutation (debug only).", implemented: NONE, reason: "patches are not logged yet", inert: "false" }),
  upstream({ name: "dumpPayload", type: "bool", default: "false", controllers: AC, help: "Log the full AdmissionReview payloads, Secrets redacted (debug only).", implemented: NONE, reason: "AdmissionReview payloads are not logged yet", inert: "false" }),
  upstream({ name: "enableConfigMapCaching", type: "bool", default: "true", controllers: ABR, help: "Enable the ConfigMap cache of configMap context entries.", implemented: NONE, reason: "configMap context entries are read when a rule needs them; there is no cache to switch", inert: "true" }),
  upstream({ name: "enableCosginLogging", type: "bool", default: "false", controllers: A, help: "Enable debug logging of cosign (upstream's spelling).", implemented: NONE, reason: SIGSTORE, inert: "false" }),
  upstream({ name: "enableDeferredLoading", type: "bool", default: "true", controllers: A, help: "Load context variables only when a rule uses them.", implemented: NONE, reason: "context entries are always loaded when a rule needs them", inert: "true" }),
  upstream({ name: "enablePolicyException", type: "bool", default: "false", controllers: ABR, help: "Enable PolicyExceptions.", implemented: ABR }),
  upstream({ name: "enableReporting", type: "string", default: "validate,mutate,mutateExisting,generate,imageVerify", controllers: ALL, help: "Comma-separated rule types whose results are reported (validate, mutate, mutateExisting, generate, imageVerify).", implemented: ABR, reason: "the cleanup controller writes no reports", inert: "validate,mutate,mutateExisting,generate,imageVerify" }),
  upstream({ name: "enableTracing", type: "bool", default: "false", controllers: ALL, help: "Set to enable exposing traces.", implemented: NONE, reason: TRACING, inert: "false" }),
  upstream({ name: "enableTuf", type: "bool", default: "false", controllers: AR, help: "Enable TUF for private sigstore deployments.", implemented: NONE, reason: SIGSTORE, inert: "false" }),
  upstream({ name: "eventsRateLimitBurst", type: "int", default: "2000", controllers: ALL, help: "Maximum burst of Event writes to the API server.", implemented: ABR, reason: EVENTS, inert: "2000", value: "<n>" }),
  upstream({ name: "eventsRateLimitQPS", type: "float", default: "1000", controllers: ALL, help: "Maximum Event writes per second to the API server.", implemented: ABR, reason: EVENTS, inert: "1000", value: "<n>" }),
  upstream({ name: "exceptionNamespace", type: "string", default: "", controllers: ABR, help: "The only namespace PolicyExceptions are accepted from (\"*\" or empty: all).", implemented: ABR, value: "<ns>" }),
  upstream({ name: "forceFailurePolicyIgnore", type: "bool", default: "false", controllers: A, help: "Set failurePolicy Ignore on every policy and its webhooks (errors and timeouts admit the request).", implemented: A }),
  upstream({ name: "generateMutatingAdmissionPolicy", type: "bool", default: "false", controllers: A, help: "Generate MutatingAdmissionPolicies from eligible policies.", implemented: NONE, reason: "MutatingAdmissionPolicies are not generated yet", inert: "false" }),
  upstream({ name: "generateValidatingAdmissionPolicy", type: "bool", default: "false", controllers: A, help: "Generate ValidatingAdmissionPolicies from eligible policies.", implemented: NONE, reason: "ValidatingAdmissionPolicies are not generated yet", inert: "false" }),
  upstream({ name: "genWorkers", type: "int", default: "10", controllers: ["background"], help: "Number of workers processing generate and mutate-existing rules.", implemented: ["background"], value: "<n>" }),
  upstream({ name: "httpAllowlist", type: "string", default: "", controllers: ABR, help: "Comma-separated URL prefixes policies' HTTP calls may reach.", implemented: NONE, reason: "there is no allow/block list for policies' HTTP calls yet" }),
  upstream({ name: "httpBlocklist", type: "string", default: "", controllers: ABR, help: "Comma-separated addresses policies' HTTP calls may not reach.", implemented: NONE, reason: "there is no allow/block list for policies' HTTP calls yet" }),
  upstream({ name: "imagePullSecrets", type: "string", default: "", controllers: ABR, help: "Comma-separated Secrets (in Kyverno's namespace) with registry credentials.", implemented: NONE, reason: REGISTRY }),
  upstream({ name: "imageVerifyCacheEnabled", type: "bool", default: "true", controllers: A, help: "Enable the TTL cache of verified images.", implemented: NONE, reason: SIGSTORE, inert: "true" }),
  upstream({ name: "imageVerifyCacheMaxSize", type: "int", default: "1000", controllers: A, help: "Maximum entries of the verified-images cache.", implemented: NONE, reason: SIGSTORE, inert: "1000" }),
  upstream({ name: "imageVerifyCacheTTLDuration", type: "duration", default: "60m", controllers: A, help: "TTL of the verified-images cache.", implemented: NONE, reason: SIGSTORE, inert: "60m" }),
  upstream({ name: "kubeconfig", type: "string", default: "", controllers: ALL, help: "Kubeconfig file (default: KUBECONFIG, ~/.kube/config, then in-cluster).", implemented: ALL, value: "<file>" }),
  upstream({ name: "leaderElectionRetryPeriod", type: "duration", default: "2s", controllers: ALL, help: "Interval at which a leader renews and a candidate retries the Lease.", implemented: ACR, reason: NOT_BUILT, value: "<duration>" }),
  upstream({ name: "log_backtrace_at", type: "string", default: "", controllers: ALL, help: "When logging hits line file:N, emit a stack trace.", implemented: NONE, reason: KLOG }),
  upstream({ name: "log_dir", type: "string", default: "", controllers: ALL, help: "If non-empty, write log files in this directory.", implemented: NONE, reason: KLOG, inert: "" }),
  upstream({ name: "log_file", type: "string", default: "", controllers: ALL, help: "If non-empty, use this log file.", implemented: NONE, reason: KLOG, inert: "" }),
  upstream({ name: "log_file_max_size", type: "int", default: "1800", controllers: ALL, help: "Maximum size of a log file, in megabytes.", implemented: NONE, reason: KLOG, inert: "1800" }),
  upstream({ name: "loggingFormat", type: "string", default: "text", controllers: ALL, help: "Log format: text or json.", implemented: ALL, value: "<format>" }),
  upstream({ name: "loggingtsFormat", type: "string", default: "RFC3339", controllers: ALL, help: "Timestamp format of the logs: RFC3339, iso8601, rfc3339nano, millis or nanos.", implemented: ALL, value: "<format>" }),
  upstream({ name: "logtostderr", type: "bool", default: "true", controllers: ALL, help: "Log to standard error instead of files.", implemented: NONE, reason: KLOG, inert: "true" }),
  upstream({ name: "maxAPICallResponseLength", type: "int", default: "10000000", controllers: ALL, help: "Maximum length of an API call's response body.", implemented: NONE, reason: "each context entry is bounded at 8 MiB instead", value: "<bytes>" }),
  upstream({ name: "maxAuditCapacity", type: "int", default: "1000", controllers: A, help: "Maximum audit requests queued.", implemented: NONE, reason: "audit rules are evaluated with the request; there is no audit queue", inert: "1000" }),
  upstream({ name: "maxAuditWorkers", type: "int", default: "8", controllers: A, help: "Maximum workers processing audit policies.", implemented: NONE, reason: "audit rules are evaluated with the request; there is no audit worker pool", inert: "8" }),
  upstream({ name: "maxBackgroundReports", type: "int", default: "10000", controllers: ["background", "reports"], help: "Maximum ephemeral reports of background policies before no new ones are created.", implemented: NONE, reason: "background scans write PolicyReports directly, without ephemeral reports", inert: "10000" }),
  upstream({ name: "maxQueuedEvents", type: "int", default: "1000", controllers: ABR, help: "Upper limit of Events queued internally.", implemented: ABR, value: "<n>" }),
  upstream({ name: "metricsHost", type: "string", default: "", controllers: ALL, help: "Address the metrics are served on (hostNetwork only).", implemented: NONE, reason: "metrics listen on every address (the admission controller: --host)", inert: "" }),
  upstream({ name: "metricsPort", type: "int", default: "8000", controllers: ALL, help: "Port the Prometheus metrics are served on (plain HTTP; 0 picks a free port).", implemented: ALL, aliases: ["metrics-port"], value: "<port>" }),
  upstream({ name: "mutatingAdmissionPolicyReports", type: "bool", default: "false", controllers: R, help: "Report on MutatingAdmissionPolicies.", implemented: NONE, reason: "MutatingAdmissionPolicies are not reported yet", inert: "false" }),
  upstream({ name: "omitEvents", type: "string", default: "PolicyApplied,PolicySkipped", controllers: ABR, help: "Comma-separated Event types not emitted (PolicyViolation, PolicyApplied, PolicyError, PolicySkipped).", implemented: ABR, value: "<types>" }),
  upstream({ name: "one_output", type: "bool", default: "false", controllers: ALL, help: "If true, only write logs to their native severity level.", implemented: NONE, reason: KLOG, inert: "false" }),
  upstream({ name: "openreportsEnabled", type: "bool", default: "false", controllers: R, help: "Use openreports.io/v1alpha1 for the reports.", implemented: NONE, reason: "reports are wgpolicyk8s.io/v1alpha2 PolicyReports", inert: "false" }),
  upstream({ name: "otelCollector", type: "string", default: "opentelemetrycollector.kyverno.svc.cluster.local", controllers: ALL, help: "OpenTelemetry collector address.", implemented: NONE, reason: OTEL }),
  upstream({ name: "otelConfig", type: "string", default: "prometheus", controllers: ALL, help: "prometheus, or grpc for OpenTelemetry.", implemented: NONE, reason: OTEL, inert: "prometheus" }),
  upstream({ name: "policyReports", type: "bool", default: "true", controllers: R, help: "Enable or disable PolicyReports.", implemented: NONE, reason: "PolicyReports are always written", inert: "true" }),
  upstream({ name: "profile", type: "bool", default: "false", controllers: ALL, help: "Enable profiling.", implemented: NONE, reason: PROFILING, inert: "false" }),
  upstream({ name: "profileAddress", type: "string", default: "", controllers: ALL, help: "Address of the profiling server.", implemented: NONE, reason: PROFILING, inert: "" }),
  upstream({ name: "profilePort", type: "int", default: "6060", controllers: ALL, help: "Port of the profiling server.", implemented: NONE, reason: PROFILING, inert: "6060" }),
  upstream({ name: "protectManagedResources", type: "bool", default: "false", controllers: AC, help: "Protect Kyverno's resources from changes by anyone but Kyverno.", implemented: NONE, reason: "managed resources are not protected yet", inert: "false" }),
  upstream({ name: "registryCredentialHelpers", type: "string", default: "default,google,amazon,azure,github", controllers: ABR, help: "Comma-separated credential helpers for registries.", implemented: NONE, reason: REGISTRY, inert: "default,google,amazon,azure,github" }),
  upstream({ name: "renewBefore", type: "duration", default: "360h0m0s", controllers: AC, help: "Renew certificates this long before they expire.", implemented: NONE, reason: "certificates are renewed 15 days (360h) before they expire", inert: "360h" }),
  upstream({ name: "reportsChunkSize", type: "int", default: "1000", controllers: R, help: "Deprecated: results per report before splitting.", implemented: NONE, reason: "reports are one per resource (deprecated upstream too)" }),
  upstream({ name: "serverIP", type: "string", default: "", controllers: AC, help: "Outside the cluster: webhooks call https://<ip>:<port> (default port: the webhook port).", implemented: AC, value: "<ip[:port]>" }),
  upstream({ name: "servicePort", type: "int", default: "443", controllers: AC, help: "Port of the webhook Service, used in the webhook configurations.", implemented: AC, value: "<port>" }),
  upstream({ name: "skip_headers", type: "bool", default: "false", controllers: ALL, help: "If true, avoid header prefixes in the log messages.", implemented: NONE, reason: KLOG, inert: "false" }),
  upstream({ name: "skip_log_headers", type: "bool", default: "false", controllers: ALL, help: "If true, avoid headers when opening log files.", implemented: NONE, reason: KLOG, inert: "false" }),
  upstream({ name: "skipResourceFilters", type: "bool", default: "true", controllers: R, help: "Ignore the ConfigMap's resourceFilters in background scans.", implemented: NONE, reason: "background scans never apply resourceFilters", inert: "true" }),
  upstream({ name: "stderrthreshold", type: "int", default: "2", controllers: ALL, help: "Logs at or above this threshold go to stderr (klog).", implemented: NONE, reason: KLOG, inert: "2" }),
  upstream({ name: "tlsKeyAlgorithm", type: "string", default: "RSA", controllers: AC, help: "Key algorithm of self-managed certificates: RSA, ECDSA or Ed25519.", implemented: NONE, reason: "certificates are always ECDSA P-256", inert: "ECDSA" }),
  upstream({ name: "tlsSecretName", type: "string", default: "", controllers: AC, help: "Name of the Secret holding the TLS pair (default: <service>.<namespace>.svc.kyverno-tls-pair).", implemented: NONE, reason: "the Secrets are always named <service>.<namespace>.svc.kyverno-tls-ca / -tls-pair" }),
  upstream({ name: "tracingAddress", type: "string", default: "", controllers: ALL, help: "Tracing receiver address.", implemented: NONE, reason: TRACING, inert: "" }),
  upstream({ name: "tracingCreds", type: "string", default: "", controllers: ALL, help: "CA Secret of the tracing client (empty: insecure).", implemented: NONE, reason: TRACING, inert: "" }),
  upstream({ name: "tracingPort", type: "string", default: "4317", controllers: ALL, help: "Tracing receiver port.", implemented: NONE, reason: TRACING, inert: "4317" }),
  upstream({ name: "transportCreds", type: "string", default: "", controllers: ALL, help: "CA Secret of the OpenTelemetry metrics client (empty: insecure).", implemented: NONE, reason: OTEL, inert: "" }),
  upstream({ name: "ttlReconciliationInterval", type: "duration", default: "1m", controllers: ["cleanup"], help: "Interval of the reconciliation of resources with the cleanup TTL label.", implemented: ["cleanup"], value: "<duration>" }),
  upstream({ name: "tufMirror", type: "string", default: "", controllers: AR, help: "Alternate TUF mirror for sigstore.", implemented: NONE, reason: SIGSTORE, inert: "" }),
  upstream({ name: "tufRoot", type: "string", default: "", controllers: AR, help: "Alternate TUF root.json for sigstore.", implemented: NONE, reason: SIGSTORE, inert: "" }),
  upstream({ name: "v", type: "int", default: "2", controllers: ALL, help: "Log verbosity: 0-3 errors, warnings and info; 4 and more add debug lines.", implemented: ALL, value: "<level>" }),
  upstream({ name: "validatingAdmissionPolicyReports", type: "bool", default: "false", controllers: R, help: "Report on ValidatingAdmissionPolicies.", implemented: NONE, reason: "ValidatingAdmissionPolicies are not reported yet", inert: "false" }),
  upstream({ name: "vmodule", type: "string", default: "", controllers: ALL, help: "Comma-separated pattern=N settings for file-filtered logging.", implemented: NONE, reason: "there are no per-file log levels; use -v", inert: "" }),
  upstream({ name: "webhookRegistrationTimeout", type: "duration", default: "120s", controllers: A, help: "How long to try registering the webhooks with the API server.", implemented: NONE, reason: "webhook configurations are retried until they are written", inert: "120s" }),
  upstream({ name: "webhookServerHost", type: "string", default: "", controllers: A, help: "Address the webhooks are called on (hostNetwork only).", implemented: NONE, reason: "use --serverIP to point the webhooks at this process", inert: "" }),
  upstream({ name: "webhookServerPort", type: "int", default: "9443", controllers: A, help: "Port of the webhook server (HTTPS; 0 picks a free port).", implemented: A, aliases: ["port"], value: "<port>" }),
  upstream({ name: "webhookTimeout", type: "int", default: "10", controllers: A, help: "Webhook timeout the API server uses, in seconds (1-30).", implemented: A, value: "<seconds>" }),
];

/** kyverno-ts's own flags (no upstream counterpart). */
// biome-ignore format: one line per flag, read as a table
const OWN: readonly FlagSpec[] = [
  own({ name: "standalone", type: "bool", default: "false", controllers: A, help: "No cluster: policies from files, self-signed CA and serving certificate.", implemented: A }),
  own({ name: "policies", type: "string", default: "", controllers: A, help: "--standalone: file or directory of ClusterPolicy / Policy / PolicyException (repeatable).", implemented: A, repeatable: true, value: "<path>" }),
  own({ name: "config", type: "string", default: "", controllers: A, help: "--standalone: Kyverno ConfigMap file (resourceFilters, excludeGroups, excludeUsernames).", implemented: A, value: "<file>" }),
  own({ name: "metricsConfig", type: "string", default: "", controllers: A, help: "--standalone: kyverno-metrics ConfigMap file (namespaces, bucketBoundaries, metricsExposure).", implemented: A, value: "<file>" }),
  own({ name: "tls-cert-file", type: "string", default: "", controllers: A, help: "--standalone: serving certificate (PEM) instead of a generated one.", implemented: A, value: "<file>" }),
  own({ name: "tls-key-file", type: "string", default: "", controllers: A, help: "--standalone: its private key (PEM).", implemented: A, value: "<file>" }),
  own({ name: "host", type: "string", default: "0.0.0.0", controllers: AR, help: "Address the webhook and metrics servers (reports: the metrics server) listen on.", implemented: AR, value: "<address>" }),
  own({ name: "san", type: "string", default: "", controllers: A, help: "Extra DNS name or IP of the serving certificate (repeatable).", implemented: A, repeatable: true, value: "<name>" }),
  own({ name: "namespace", type: "string", default: "kyverno", env: "KYVERNO_NAMESPACE", controllers: ALL, help: "Kyverno's namespace (Secrets, ConfigMaps, Leases).", implemented: ALL, value: "<ns>" }),
  own({ name: "serviceName", type: "string", default: "kyverno-svc", env: "KYVERNO_SVC", controllers: AC, help: "The webhook Service (cleanup: default kyverno-cleanup-controller).", implemented: AC, value: "<name>" }),
  own({ name: "configMap", type: "string", default: "kyverno", env: "INIT_CONFIG", controllers: AB, help: "Kyverno's ConfigMap (watched).", implemented: AB, value: "<name>" }),
  own({ name: "metricsConfigMap", type: "string", default: "kyverno-metrics", env: "METRICS_CONFIG", controllers: ALL, help: "The metrics ConfigMap, read at start.", implemented: ALL, value: "<name>" }),
  own({ name: "url-override", type: "string", default: "", controllers: A, help: "Outside the cluster: the https:// base URL the webhooks call.", implemented: A, value: "<url>" }),
  own({ name: "leaderElection", type: "bool", default: "true", controllers: A, help: "Elect a leader on the \"kyverno\" Lease (false: this replica leads alone).", implemented: A }),
  own({ name: "identity", type: "string", default: "", env: "POD_NAME", controllers: ALL, help: "This replica's identity in the Lease (the host name when neither is set).", implemented: ALL, value: "<name>" }),
  own({ name: "evaluationWorkers", type: "int", default: "2", controllers: A, help: "Worker threads that evaluate policies, off the thread serving requests and probes (0: evaluate on it): at most this many, started on demand (none at start: the first review sent to them waits for one to start); a worker idle for 60s stops.", implemented: A, value: "<n>" }),
  own({ name: "evaluationForeachElements", type: "int", default: "100000", controllers: AR, help: "Evaluation budget: elements one rule's foreach loops may visit (all nesting levels summed); a rule over it ends as an error.", implemented: AR, value: "<n>" }),
  own({ name: "evaluationPatternNodes", type: "int", default: "1000000", controllers: AR, help: "Evaluation budget: resource nodes one rule's pattern checks (pattern, anyPattern, anchors) may visit.", implemented: AR, value: "<n>" }),
  own({ name: "evaluationJMESPathSteps", type: "int", default: "1000000", controllers: AR, help: "Evaluation budget: JMESPath work (projected or filtered elements, function calls) of one rule.", implemented: AR, value: "<n>" }),
  own({ name: "evaluationCELCost", type: "int", default: "1000000", controllers: A, help: "Evaluation budget: CEL cost (comprehension iterations) of one validate.cel rule or CEL policy evaluation.", implemented: A, value: "<n>" }),
  own({ name: "evaluationWorkerScheduling", type: "string", default: "idle", env: "KYVERNO_TS_EVALUATION_WORKER_SCHEDULING", controllers: A, help: "How the evaluation workers yield the CPU to the thread serving requests and probes: idle (Linux's SCHED_IDLE, set with util-linux's chrt: a worker runs only on CPU that thread leaves; in a pod, the container's) or nice (a lower priority only: a busy worker keeps the core to the end of its time slice). Without chrt, idle acts as nice.", implemented: A, value: "<idle|nice>" }),
  own({ name: "evaluationInlineTime", type: "duration", default: "5ms", controllers: A, help: "With --evaluationWorkers: how long a request is first evaluated on the serving thread before it moves to a worker (0s: always a worker); policies that use that much of the thread's CPU time go straight to a worker for a minute.", implemented: A, value: "<duration>" }),
  own({ name: "log-level", type: "string", default: "", controllers: ALL, help: "debug, info, warn, error or silent; wins over -v.", implemented: ALL, value: "<level>" }),
  own({ name: "serviceAccountName", type: "string", default: "kyverno-background-controller", env: "KYVERNO_SERVICEACCOUNT_NAME", controllers: ["background"], help: "This controller's ServiceAccount, named in permission failures.", implemented: ["background"], value: "<name>" }),
];

/** Every flag, upstream's first. */
export const FLAGS: readonly FlagSpec[] = [...UPSTREAM, ...OWN];

/** The flags a controller accepts. */
export function flagsOf(controller: ControllerName): FlagSpec[] {
  return FLAGS.filter((f) => f.controllers.includes(controller));
}
