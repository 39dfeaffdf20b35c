{{/* Helpers of the policy-reporter chart (kyverno-ts). */}}

{{/* The app name: "policy-reporter" also as a subchart under an alias (policyReporter), so selectors and dashboards see one name. */}}
{{- define "policy-reporter.name" -}}
{{- default "policy-reporter" .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The name of every resource and of the Lease (fullnameOverride, as upstream: "policy-reporter"). */}}
{{- define "policy-reporter.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := include "policy-reporter.name" . -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "policy-reporter.namespace" -}}
{{- default .Release.Namespace .Values.namespaceOverride -}}
{{- end -}}

{{- define "policy-reporter.selectorLabels" -}}
{{- if .Values.selectorLabels -}}
{{ toYaml .Values.selectorLabels }}
{{- else -}}
app.kubernetes.io/name: {{ include "policy-reporter.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
{{- end -}}

{{- define "policy-reporter.labels" -}}
{{ include "policy-reporter.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: reporting
app.kubernetes.io/part-of: kyverno-ts
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- with .Values.global.labels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* (list $ extra): the `annotations:` block of metadata (indented for it), from the chart-wide `annotations` and `extra`; nothing when both are empty. */}}
{{- define "policy-reporter.annotations" -}}
{{- $all := merge (dict) ((index . 1) | default dict) ((index . 0).Values.annotations | default dict) -}}
{{- with $all }}
  annotations:
    {{- toYaml . | nindent 4 }}
{{- end }}
{{- end -}}

{{- define "policy-reporter.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "policy-reporter.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The image: global.image.registry (the kyverno-ts chart's), else image.registry; the tag defaults to the appVersion, a `sha256:` tag is a digest. */}}
{{- define "policy-reporter.image" -}}
{{- $registry := coalesce ((.Values.global | default dict).image | default dict).registry .Values.image.registry -}}
{{- $tag := toString (.Values.image.tag | default .Chart.AppVersion) -}}
{{- $ref := .Values.image.repository -}}
{{- if $registry -}}{{- $ref = printf "%s/%s" $registry $ref -}}{{- end -}}
{{- if hasPrefix "sha256:" $tag -}}
{{- printf "%s@%s" $ref $tag -}}
{{- else -}}
{{- printf "%s:%s" $ref $tag -}}
{{- end -}}
{{- end -}}

{{/* "true" when leader election is on: leaderElection.enabled, or (unset) more than one replica. */}}
{{- define "policy-reporter.leaderElection" -}}
{{- $enabled := .Values.leaderElection.enabled -}}
{{- if kindIs "invalid" $enabled -}}
{{- if gt (int .Values.replicaCount) 1 -}}true{{- end -}}
{{- else if $enabled -}}true{{- end -}}
{{- end -}}

{{/* "true" when the store is SQLite in the pod. */}}
{{- define "policy-reporter.sqlite" -}}
{{- if has (.Values.database.type | default "") (list "" "sqlite") -}}true{{- end -}}
{{- end -}}

{{/* "true" when /metrics is served (metrics.enabled or monitoring.enabled). */}}
{{- define "policy-reporter.metrics" -}}
{{- if or .Values.metrics.enabled .Values.monitoring.enabled -}}true{{- end -}}
{{- end -}}

{{/* "true" when the dashboard has a login (its sessions then need a key shared by the replicas). */}}
{{- define "policy-reporter.login" -}}
{{- $ui := .Values.ui -}}
{{- if and $ui.enabled (or $ui.openIDConnect.enabled ($ui.basicAuth | default dict).username ($ui.basicAuth | default dict).secretRef) -}}true{{- end -}}
{{- end -}}

{{/* The supported target kinds (the others are refused by values.schema.json unless unconfigured). */}}
{{- define "policy-reporter.targetKinds" -}}
loki elasticsearch slack discord teams webhook telegram googleChat alertManager
{{- end -}}

{{/*
The Secrets the reporter reads through the API (secretRef of basicAuth, database, redis, the SMTP
settings, the dashboard's logins, every target and channel), as a JSON list, sorted and unique: the
Role grants `get` on exactly these.
*/}}
{{- define "policy-reporter.secretRefs" -}}
{{- $v := .Values -}}
{{- $names := list $v.basicAuth.secretRef $v.database.secretRef $v.redis.secretRef $v.emailReports.smtp.secret $v.ui.openIDConnect.secretRef (($v.ui.basicAuth | default dict).secretRef | default "") -}}
{{- range $kind := splitList " " (include "policy-reporter.targetKinds" .) -}}
{{- $target := index $v.target $kind | default dict -}}
{{- $names = append $names ($target.secretRef | default "") -}}
{{- range ($target.channels | default list) -}}
{{- $names = append $names (.secretRef | default "") -}}
{{- end -}}
{{- end -}}
{{- without ($names | uniq | sortAlpha) "" | toJson -}}
{{- end -}}

{{/* "true" when a target or channel filters on namespace labels (the reporter then GETs Namespaces). */}}
{{- define "policy-reporter.namespaceSelectors" -}}
{{- $v := .Values -}}
{{- range $kind := splitList " " (include "policy-reporter.targetKinds" .) -}}
{{- $target := index $v.target $kind | default dict -}}
{{- range prepend ($target.channels | default list) $target -}}
{{- if ((.filter | default dict).namespaces | default dict).selector -}}true{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* "true" when a source filter drops controlled resources (the reporter then GETs the report's owner). */}}
{{- define "policy-reporter.ownerLookups" -}}
{{- range .Values.sourceFilters -}}
{{- if .uncontrolledOnly -}}true{{- end -}}
{{- end -}}
{{- end -}}

{{/* Checks across values that the schema cannot express; each failure names the keys. */}}
{{- define "policy-reporter.validate" -}}
{{- if and (gt (int .Values.replicaCount) 1) (not (include "policy-reporter.leaderElection" .)) -}}
{{- fail (printf "replicaCount is %d: several replicas need leader election (leave leaderElection.enabled unset or set it to true)" (int .Values.replicaCount)) -}}
{{- end -}}
{{- if and .Values.podDisruptionBudget.minAvailable .Values.podDisruptionBudget.maxUnavailable -}}
{{- fail "podDisruptionBudget: set minAvailable or maxUnavailable, not both" -}}
{{- end -}}
{{- if and (include "policy-reporter.metrics" .) (eq (int .Values.metrics.port) (int .Values.port.number)) -}}
{{- fail (printf "metrics.port and port.number are both %d: /metrics needs its own port" (int .Values.port.number)) -}}
{{- end -}}
{{- range $key := list "ingress" "ui.ingress" -}}
{{- $ingress := ternary $.Values.ui.ingress $.Values.ingress (eq $key "ui.ingress") -}}
{{- if and $ingress.enabled (empty $ingress.hosts) -}}
{{- fail (printf "%s.enabled is true: list at least one host in %s.hosts" $key $key) -}}
{{- end -}}
{{- end -}}
{{- if and .Values.redis.enabled (not .Values.redis.address) -}}
{{- fail "redis.enabled is true: set redis.address (host:port)" -}}
{{- end -}}
{{- if and (not (include "policy-reporter.sqlite" .)) (not (or .Values.database.dsn .Values.database.host .Values.database.secretRef .Values.database.mountedSecret)) -}}
{{- fail (printf "database.type is %s: set database.host, database.dsn or database.secretRef" .Values.database.type) -}}
{{- end -}}
{{- $oidc := .Values.ui.openIDConnect -}}
{{- if and $oidc.enabled (not $oidc.secretRef) -}}
{{- range $key := list "discoveryUrl" "callbackUrl" "clientId" -}}
{{- if not (get $oidc $key) -}}
{{- fail (printf "ui.openIDConnect.enabled is true: set ui.openIDConnect.%s (or ui.openIDConnect.secretRef)" $key) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
