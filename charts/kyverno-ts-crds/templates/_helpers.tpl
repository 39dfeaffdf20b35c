{{/* Metadata of a vendored CRD (see scripts/charts/kyverno-ts-crds.ts), as JSON. */}}
{{- define "kyverno-ts-crds.metadata" -}}
{{- $root := .root -}}
{{- $common := dict
  "helm.sh/chart" (printf "%s-%s" $root.Chart.Name $root.Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-")
  "app.kubernetes.io/managed-by" $root.Release.Service
  "app.kubernetes.io/name" $root.Chart.Name
  "app.kubernetes.io/instance" $root.Release.Name
  "app.kubernetes.io/part-of" "kyverno"
  "app.kubernetes.io/version" $root.Chart.AppVersion -}}
{{- $labels := merge (dict) $common $root.Values.customLabels .labels -}}
{{- $annotations := merge (dict) $root.Values.annotations .annotations -}}
{{- toJson (dict "name" .name "labels" $labels "annotations" $annotations) -}}
{{- end -}}
