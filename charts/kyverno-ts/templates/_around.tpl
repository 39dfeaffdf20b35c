{{/*
The objects around a controller's Deployment, shared by every controller: metrics Service,
PodDisruptionBudget, ServiceMonitor, NetworkPolicy and API Priority and Fairness. Argument: a
component context (root, component, values), plus `replicas` for the PDB and `networkPort` for the
NetworkPolicy.
*/}}

{{/* A Service of a component. Argument: the component context plus name, spec (the service values) and ports. */}}
{{- define "kyverno-ts.service" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ .name }}
  namespace: {{ include "kyverno-ts.namespace" .root }}
  labels:
    {{- include "kyverno-ts.labels" . | nindent 4 }}
  {{- with .spec.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  type: {{ .spec.type }}
  selector:
    {{- include "kyverno-ts.selectorLabels" . | nindent 4 }}
  ports:
    {{- range .ports }}
    - name: {{ .name }}
      port: {{ .port }}
      targetPort: {{ .targetPort }}
      protocol: TCP
      {{- if and (eq $.spec.type "NodePort") $.spec.nodePort }}
      nodePort: {{ $.spec.nodePort }}
      {{- end }}
    {{- end }}
  {{- with .spec.trafficDistribution }}
  trafficDistribution: {{ . }}
  {{- end }}
{{- end -}}

{{/* The metrics Service: a port named `metrics` (upstream: 8000) on the container's metrics port. */}}
{{- define "kyverno-ts.metricsService" -}}
{{- if .values.metricsService.create }}
---
{{ include "kyverno-ts.service" (dict "root" .root "component" .component "values" .values "name" (include "kyverno-ts.metricsServiceName" .) "spec" .values.metricsService "ports" (list (dict "name" "metrics" "port" .values.metricsService.port "targetPort" "metrics"))) }}
{{- end }}
{{- end -}}

{{/* A PodDisruptionBudget when enabled, or when there is more than one replica (as upstream). */}}
{{- define "kyverno-ts.podDisruptionBudget" -}}
{{- $pdb := .values.podDisruptionBudget -}}
{{- if or $pdb.enabled (gt (int (default 1 .replicas)) 1) }}
---
apiVersion: {{ default "policy/v1" .root.Values.apiVersionOverride.podDisruptionBudget }}
kind: PodDisruptionBudget
metadata:
  name: {{ include "kyverno-ts.componentName" . }}
  namespace: {{ include "kyverno-ts.namespace" .root }}
  labels:
    {{- include "kyverno-ts.labels" . | nindent 4 }}
spec:
  {{- if not (kindIs "invalid" $pdb.maxUnavailable) }}
  maxUnavailable: {{ $pdb.maxUnavailable }}
  {{- else }}
  minAvailable: {{ $pdb.minAvailable }}
  {{- end }}
  {{- with $pdb.unhealthyPodEvictionPolicy }}
  unhealthyPodEvictionPolicy: {{ . }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "kyverno-ts.selectorLabels" . | nindent 6 }}
{{- end }}
{{- end -}}

{{/* A ServiceMonitor scraping the metrics Service. */}}
{{- define "kyverno-ts.serviceMonitor" -}}
{{- $sm := .values.serviceMonitor -}}
{{- if $sm.enabled }}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: {{ include "kyverno-ts.componentName" . }}
  namespace: {{ default (include "kyverno-ts.namespace" .root) $sm.namespace }}
  labels:
    {{- include "kyverno-ts.labels" . | nindent 4 }}
    {{- with $sm.additionalLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with $sm.additionalAnnotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  selector:
    matchLabels:
      {{- include "kyverno-ts.selectorLabels" . | nindent 6 }}
  namespaceSelector:
    matchNames:
      - {{ include "kyverno-ts.namespace" .root }}
  endpoints:
    - port: metrics
      path: /metrics
      {{- /* The controllers serve plain HTTP; `secure` is for a TLS-terminating proxy or mesh in front. */}}
      scheme: {{ ternary "https" "http" (eq $sm.secure true) }}
      {{- if and $sm.secure $sm.tlsConfig }}
      tlsConfig:
        {{- toYaml $sm.tlsConfig | nindent 8 }}
      {{- end }}
      interval: {{ $sm.interval }}
      scrapeTimeout: {{ $sm.scrapeTimeout }}
      {{- with $sm.relabelings }}
      relabelings:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $sm.metricRelabelings }}
      metricRelabelings:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end }}
{{- end -}}

{{/* A NetworkPolicy admitting ingress to `networkPort` from `ingressFrom` only. */}}
{{- define "kyverno-ts.networkPolicy" -}}
{{- if .values.networkPolicy.enabled }}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "kyverno-ts.componentName" . }}
  namespace: {{ include "kyverno-ts.namespace" .root }}
  labels:
    {{- include "kyverno-ts.labels" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "kyverno-ts.selectorLabels" . | nindent 6 }}
  policyTypes:
    - Ingress
  ingress:
    - ports:
        - protocol: TCP
          port: {{ .networkPort }}
      {{- with .values.networkPolicy.ingressFrom }}
      from:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end }}
{{- end -}}

{{/* API Priority and Fairness: this controller's requests in their own priority level. */}}
{{- define "kyverno-ts.flowControl" -}}
{{- if .values.apiPriorityAndFairness }}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata:
  name: {{ include "kyverno-ts.componentName" . }}
  labels:
    {{- include "kyverno-ts.labels" . | nindent 4 }}
spec:
  {{- toYaml .values.priorityLevelConfigurationSpec | nindent 2 }}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata:
  name: {{ include "kyverno-ts.componentName" . }}
  labels:
    {{- include "kyverno-ts.labels" . | nindent 4 }}
spec:
  priorityLevelConfiguration:
    name: {{ include "kyverno-ts.componentName" . }}
  matchingPrecedence: 1000
  rules:
    - subjects:
        - kind: ServiceAccount
          serviceAccount:
            name: {{ include "kyverno-ts.serviceAccountName" . }}
            namespace: {{ include "kyverno-ts.namespace" .root }}
      resourceRules:
        - apiGroups: ["*"]
          resources: ["*"]
          verbs: ["*"]
          clusterScope: true
          namespaces: ["*"]
{{- end }}
{{- end -}}
