{{/*
Least-privilege RBAC of a controller, shaped as upstream's:
  ServiceAccount <component name>
  ClusterRole <fullname>:<component>            aggregates every ClusterRole labelled
                                                rbac.kyverno.io/aggregate-to-<component>: "true"
  ClusterRole <fullname>:<component>:core       the API calls the binary makes (labelled, so aggregated)
  ClusterRole <fullname>:<component>:additional rbac.clusterRole.extraResources (labelled)
  ClusterRoleBinding <fullname>:<component>     the aggregated ClusterRole to the ServiceAccount
  ClusterRoleBinding <fullname>:<component>:view  with rbac.createViewRoleBinding
  Role + RoleBinding <fullname>:<component>     in Kyverno's namespace (Secrets, Lease)
Users grant a controller more kinds with their own ClusterRole carrying the aggregation label.
Argument: a component context plus `clusterRules` and `namespaceRules` (lists of PolicyRules).
*/}}
{{- define "kyverno-ts.rbac" -}}
{{- $v := .values -}}
{{- $ns := include "kyverno-ts.namespace" .root -}}
{{- $role := include "kyverno-ts.roleName" . -}}
{{- $aggregate := dict (printf "rbac.kyverno.io/aggregate-to-%s" .component) "true" -}}
{{- if $v.rbac.create }}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "kyverno-ts.serviceAccountName" . }}
  namespace: {{ $ns }}
  labels:
    {{- include "kyverno-ts.labels" . | nindent 4 }}
  {{- with $v.rbac.serviceAccount.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
automountServiceAccountToken: {{ $v.rbac.serviceAccount.automountServiceAccountToken }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ $role }}
  labels:
    {{- include "kyverno-ts.labels" . | nindent 4 }}
aggregationRule:
  clusterRoleSelectors:
    - matchLabels:
        {{- toYaml $aggregate | nindent 8 }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ $role }}:core
  labels:
    {{- include "kyverno-ts.labels" . | nindent 4 }}
    {{- toYaml $aggregate | nindent 4 }}
rules:
  {{- toYaml (concat .clusterRules (default (list) $v.rbac.coreClusterRole.extraResources)) | nindent 2 }}
{{- with $v.rbac.clusterRole.extraResources }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ $role }}:additional
  labels:
    {{- include "kyverno-ts.labels" $ | nindent 4 }}
    {{- toYaml $aggregate | nindent 4 }}
rules:
  {{- toYaml . | nindent 2 }}
{{- end }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: {{ $role }}
  labels:
    {{- include "kyverno-ts.labels" . | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: {{ $role }}
subjects:
  - kind: ServiceAccount
    name: {{ include "kyverno-ts.serviceAccountName" . }}
    namespace: {{ $ns }}
{{- if $v.rbac.createViewRoleBinding }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: {{ $role }}:view
  labels:
    {{- include "kyverno-ts.labels" . | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: {{ $v.rbac.viewRoleName }}
subjects:
  - kind: ServiceAccount
    name: {{ include "kyverno-ts.serviceAccountName" . }}
    namespace: {{ $ns }}
{{- end }}
{{- with .namespaceRules }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {{ $role }}
  namespace: {{ $ns }}
  labels:
    {{- include "kyverno-ts.labels" $ | nindent 4 }}
rules:
  {{- toYaml . | nindent 2 }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ $role }}
  namespace: {{ $ns }}
  labels:
    {{- include "kyverno-ts.labels" $ | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: {{ $role }}
subjects:
  - kind: ServiceAccount
    name: {{ include "kyverno-ts.serviceAccountName" $ }}
    namespace: {{ $ns }}
{{- end }}
{{- end }}
{{- end -}}
