{{/*
Names, labels and images. A "component context" ($c below) is the dict the per-controller templates
build: (dict "root" $ "component" "admission-controller" "values" .Values.admissionController).
*/}}

{{/* Base name of the resources: `kyverno` unless nameOverride (upstream's names: kyverno-svc, ...). */}}
{{- define "kyverno-ts.name" -}}
{{- default "kyverno" .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Full name: fullnameOverride, else the release name when it contains the base name, else both. */}}
{{- define "kyverno-ts.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := include "kyverno-ts.name" . -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "kyverno-ts.namespace" -}}
{{- default .Release.Namespace .Values.namespaceOverride -}}
{{- end -}}

{{/* Name of a component's Deployment, ServiceAccount, PDB: kyverno-admission-controller. */}}
{{- define "kyverno-ts.componentName" -}}
{{- printf "%s-%s" (include "kyverno-ts.name" .root) .component | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Name of a component's ClusterRoles and bindings: kyverno:admission-controller. */}}
{{- define "kyverno-ts.roleName" -}}
{{- printf "%s:%s" (include "kyverno-ts.fullname" .root) .component -}}
{{- end -}}

{{- define "kyverno-ts.serviceAccountName" -}}
{{- default (include "kyverno-ts.componentName" .) .values.rbac.serviceAccount.name -}}
{{- end -}}

{{/* The webhook Service (upstream: kyverno-svc). */}}
{{- define "kyverno-ts.serviceName" -}}
{{- printf "%s-svc" (include "kyverno-ts.name" .) -}}
{{- end -}}

{{/* The metrics Service of a component: kyverno-svc-metrics for the admission controller. */}}
{{- define "kyverno-ts.metricsServiceName" -}}
{{- if eq .component "admission-controller" -}}
{{- printf "%s-metrics" (include "kyverno-ts.serviceName" .root) -}}
{{- else -}}
{{- printf "%s-metrics" (include "kyverno-ts.componentName" .) -}}
{{- end -}}
{{- end -}}

{{/* Kyverno's ConfigMap. */}}
{{- define "kyverno-ts.configMapName" -}}
{{- default (include "kyverno-ts.fullname" .) .Values.config.name -}}
{{- end -}}

{{/* The metrics ConfigMap (upstream: <fullname>-metrics), read by both controllers at start. */}}
{{- define "kyverno-ts.metricsConfigMapName" -}}
{{- if .Values.metricsConfig.create -}}
{{- default (printf "%s-metrics" (include "kyverno-ts.fullname" .)) .Values.metricsConfig.name -}}
{{- else -}}
{{- required "metricsConfig.name is required when metricsConfig.create is false" .Values.metricsConfig.name -}}
{{- end -}}
{{- end -}}

{{/* The admission controller's TLS Secrets, named as the binary names them (<svc>.<ns>.svc.kyverno-tls-*). */}}
{{- define "kyverno-ts.tlsSecretPrefix" -}}
{{- printf "%s.%s.svc" (include "kyverno-ts.serviceName" .) (include "kyverno-ts.namespace" .) -}}
{{- end -}}

{{/* Labels every object carries. Argument: the root context. */}}
{{- define "kyverno-ts.commonLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/name: {{ include "kyverno-ts.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/part-of: {{ include "kyverno-ts.fullname" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- with .Values.customLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Labels of a component's objects. */}}
{{- define "kyverno-ts.labels" -}}
{{ include "kyverno-ts.commonLabels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* Selector labels of a component's Pods (upstream's: instance, part-of, component). */}}
{{- define "kyverno-ts.selectorLabels" -}}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/part-of: {{ include "kyverno-ts.fullname" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/*
An image reference. Argument: (dict "root" $ "image" <image values>). global.image.registry, then
image.registry, then image.defaultRegistry; the tag defaults to the appVersion (a `sha256:` tag is a digest).
*/}}
{{- define "kyverno-ts.image" -}}
{{- $registry := coalesce .root.Values.global.image.registry .image.registry .image.defaultRegistry -}}
{{- $tag := toString (default .root.Chart.AppVersion .image.tag) -}}
{{- $ref := .image.repository -}}
{{- if $registry -}}{{- $ref = printf "%s/%s" $registry $ref -}}{{- end -}}
{{- if hasPrefix "sha256:" $tag -}}
{{- printf "%s@%s" $ref $tag -}}
{{- else -}}
{{- printf "%s:%s" $ref $tag -}}
{{- end -}}
{{- end -}}

{{/*
Image pull secrets: global.imagePullSecrets when set, else the component's. Entries are names or
{name: ...} objects. Argument: (dict "root" $ "secrets" <list>).
*/}}
{{- define "kyverno-ts.imagePullSecrets" -}}
{{- $secrets := .secrets -}}
{{- if .root.Values.global.imagePullSecrets -}}{{- $secrets = .root.Values.global.imagePullSecrets -}}{{- end -}}
{{- range $secrets }}
- name: {{ if kindIs "map" . }}{{ .name }}{{ else }}{{ . }}{{ end }}
{{- end -}}
{{- end -}}

{{/*
`--flag=value` for each entry of an extraArgs map (sorted by flag). Whole numbers are written as
integers: YAML numbers reach templates as float64, which `%v` would write as `1e+07`.
*/}}
{{- define "kyverno-ts.extraArgs" -}}
{{- $out := list -}}
{{- range $flag, $value := . -}}
{{- if and (kindIs "float64" $value) (eq $value (float64 (int64 $value))) -}}
{{- $out = append $out (printf "--%s=%d" $flag (int64 $value)) -}}
{{- else if not (kindIs "invalid" $value) -}}
{{- $out = append $out (printf "--%s=%v" $flag $value) -}}
{{- end -}}
{{- end -}}
{{- toJson $out -}}
{{- end -}}

{{/* `--enableReporting` from `features.reporting`: the rule types switched on, in upstream's order. */}}
{{- define "kyverno-ts.enableReporting" -}}
{{- $on := list -}}
{{- range $type := list "validate" "mutate" "mutateExisting" "generate" "imageVerify" -}}
{{- if get (default (dict) $.reporting) $type -}}
{{- $on = append $on $type -}}
{{- end -}}
{{- end -}}
{{- printf "--enableReporting=%s" (join "," $on) -}}
{{- end -}}

{{/* upstream's klog verbosity (`features.logging.verbosity`) as kyverno-ts's --log-level. */}}
{{- define "kyverno-ts.logLevel" -}}
{{- $v := int . -}}
{{- if le $v 1 -}}warn{{- else if le $v 3 -}}info{{- else -}}debug{{- end -}}
{{- end -}}

{{/* The features of a component: `features` with the component's `featuresOverride` merged over them. */}}
{{- define "kyverno-ts.features" -}}
{{- toJson (mergeOverwrite (deepCopy .root.Values.features) (deepCopy (default (dict) .values.featuresOverride))) -}}
{{- end -}}

{{/* Metadata of a vendored CRD (see scripts/charts/kyverno-ts-crds.ts), as JSON. */}}
{{- define "kyverno-ts.crd.metadata" -}}
{{- $root := .root -}}
{{- $labels := merge (dict) (include "kyverno-ts.commonLabels" $root | fromYaml) $root.Values.crds.customLabels .labels -}}
{{- $annotations := merge (dict) $root.Values.crds.annotations .annotations -}}
{{- toJson (dict "name" .name "labels" $labels "annotations" $annotations) -}}
{{- end -}}
