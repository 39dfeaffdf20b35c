{{/*
The reporter's configuration file (`kyverno-ts reporter --config`): the sections of these values the
reporter reads, with what the chart decides (leader election, metrics, the Lease name), merged with
extraConfig. Rendered into a Secret, since it can hold credentials.
*/}}
{{- define "policy-reporter.config" -}}
{{- $v := .Values -}}
{{- $targets := dict -}}
{{- range $kind := splitList " " (include "policy-reporter.targetKinds" .) -}}
{{- with index $v.target $kind -}}
{{- $_ := set $targets $kind . -}}
{{- end -}}
{{- end -}}
{{- $ui := dict
  "enabled" $v.ui.enabled
  "name" $v.ui.name
  "openIDConnect" $v.ui.openIDConnect
  "basicAuth" ($v.ui.basicAuth | default dict)
  "server" (dict "sessions" (dict "maxAge" ((($v.ui.server | default dict).sessions | default dict).maxAge | default 28800)))
  "boards" ($v.ui.boards | default dict)
  "clusters" ($v.ui.clusters | default list)
-}}
{{- $email := omit $v.emailReports "resources" "graphAPI" -}}
{{- $config := dict
  "worker" $v.worker
  "logging" $v.logging
  "basicAuth" $v.basicAuth
  "metrics" (dict "enabled" (eq (include "policy-reporter.metrics" .) "true") "mode" $v.metrics.mode "customLabels" $v.metrics.customLabels "filter" $v.metrics.filter)
  "reportFilter" $v.reportFilter
  "sourceFilters" $v.sourceFilters
  "redis" $v.redis
  "database" (omit $v.database "maxIdleConnections" "connectionMaxLifetime" "connectionMaxIdleTime" "timeout" "metrics")
  "leaderElection" (dict
    "enabled" (eq (include "policy-reporter.leaderElection" .) "true")
    "lockName" (include "policy-reporter.fullname" .)
    "leaseDuration" $v.leaderElection.leaseDuration
    "renewDeadline" $v.leaderElection.renewDeadline
    "retryPeriod" $v.leaderElection.retryPeriod)
  "target" $targets
  "emailReports" $email
  "ui" $ui
-}}
{{- toYaml (mustMergeOverwrite $config ($v.extraConfig | default dict)) -}}
{{- end -}}
