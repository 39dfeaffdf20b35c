{{/*
Helpers of the kyverno-ts-policies chart. The policy templates beside this file are generated from
policies/*.yaml by scripts/charts/generate.ts; this file is written by hand.
*/}}

{{/* The chart name (nameOverride wins). */}}
{{- define "kyverno-ts-policies.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels of every policy. */}}
{{- define "kyverno-ts-policies.labels" -}}
app.kubernetes.io/name: {{ include "kyverno-ts-policies.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/part-of: kyverno-ts
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- with .Values.customLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* (list $ policy): "true" when the policy is installed (includePolicies empty or naming it, and excludePolicies not naming it). */}}
{{- define "kyverno-ts-policies.selected" -}}
{{- $root := index . 0 -}}
{{- $name := index . 1 -}}
{{- $include := $root.Values.includePolicies | default list -}}
{{- $exclude := $root.Values.excludePolicies | default list -}}
{{- if and (or (empty $include) (has $name $include)) (not (has $name $exclude)) -}}true{{- end -}}
{{- end -}}

{{/* (list $ policy): the policy's failure action (validationFailureActionByPolicy, else validationFailureAction). */}}
{{- define "kyverno-ts-policies.action" -}}
{{- $root := index . 0 -}}
{{- $byPolicy := $root.Values.validationFailureActionByPolicy | default dict -}}
{{- get $byPolicy (index . 1) | default $root.Values.validationFailureAction -}}
{{- end -}}

{{/* (list $ policy): spec.validationFailureActionOverrides from the `all` list and the policy's own list, or nothing. */}}
{{- define "kyverno-ts-policies.failureActionOverrides" -}}
{{- $root := index . 0 -}}
{{- $overrides := $root.Values.validationFailureActionOverrides | default dict -}}
{{- $list := concat (get $overrides "all" | default list) (get $overrides (index . 1) | default list) -}}
{{- with $list -}}
validationFailureActionOverrides:
{{ toYaml . }}
{{- end -}}
{{- end -}}

{{/* (list $ policy rule): the policyExclude `any` entries of the policy and of the rule, as YAML list items, or nothing. */}}
{{- define "kyverno-ts-policies.exclusions" -}}
{{- $root := index . 0 -}}
{{- $exclude := $root.Values.policyExclude | default dict -}}
{{- $policy := get $exclude (index . 1) | default dict -}}
{{- $rule := get $exclude (index . 2) | default dict -}}
{{- $list := concat (get $policy "any" | default list) (get $rule "any" | default list) -}}
{{- with $list -}}
{{ toYaml . }}
{{- end -}}
{{- end -}}

{{/* The username Argo CD's application controller sends requests as. */}}
{{- define "kyverno-ts-policies.argocdUsername" -}}
system:serviceaccount:{{ .Values.argocd.namespace }}:{{ .Values.argocd.serviceAccount }}
{{- end -}}
