{{/*
The controllers whose binaries the kyverno-ts image of this chart's appVersion contains (all four of
upstream's).
*/}}
{{- define "kyverno-ts.builtControllers" -}}
["admission-controller", "background-controller", "cleanup-controller", "reports-controller"]
{{- end -}}

{{/* "true" when `component` (argument: dict root, component) has a binary and is enabled. */}}
{{- define "kyverno-ts.deployed" -}}
{{- $built := include "kyverno-ts.builtControllers" .root | fromJsonArray -}}
{{- $values := dict "admission-controller" .root.Values.admissionController "background-controller" .root.Values.backgroundController "cleanup-controller" .root.Values.cleanupController "reports-controller" .root.Values.reportsController -}}
{{- $enabled := dig "enabled" true (get $values .component) -}}
{{- if and (has .component $built) $enabled -}}true{{- end -}}
{{- end -}}

{{/* The admission controller's webhook timeout: the short form, else extraArgs.webhookTimeout, else 10. */}}
{{- define "kyverno-ts.admission.webhookTimeout" -}}
{{- $v := .Values.admissionController -}}
{{- $timeout := 10 -}}
{{- if not (kindIs "invalid" $v.container.extraArgs.webhookTimeout) -}}{{- $timeout = $v.container.extraArgs.webhookTimeout -}}{{- end -}}
{{- if not (kindIs "invalid" $v.webhookTimeout) -}}{{- $timeout = $v.webhookTimeout -}}{{- end -}}
{{- int $timeout -}}
{{- end -}}

{{/* Replicas of a controller (1 by default), or nothing under autoscaling. */}}
{{- define "kyverno-ts.replicas" -}}
{{- if not (dig "autoscaling" "enabled" false .values) -}}
{{- int (default 1 .values.replicas) -}}
{{- end -}}
{{- end -}}
