{{/*
The Deployment of a controller, shared by every controller. Argument $w: a component context
(root, component, values) plus what differs between the controllers' values:
  image, resources, securityContext, lifecycle, extraEnvVars  the container's settings (upstream keeps
                                                              them under `container` for the admission
                                                              controller only)
  args       the command and its flags (list)
  env        the controller's own environment variables (list)
  ports      container ports (list)
  replicas   omitted when nil (autoscaling)
  terminationGracePeriodSeconds
*/}}
{{- define "kyverno-ts.deployment" -}}
{{- $v := .values -}}
{{- $root := .root -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "kyverno-ts.componentName" . }}
  namespace: {{ include "kyverno-ts.namespace" $root }}
  labels:
    {{- include "kyverno-ts.labels" . | nindent 4 }}
    {{- with $v.labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with $v.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  {{- if not (kindIs "invalid" .replicas) }}
  replicas: {{ .replicas }}
  {{- end }}
  revisionHistoryLimit: {{ $v.revisionHistoryLimit }}
  {{- with $v.updateStrategy }}
  strategy:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "kyverno-ts.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "kyverno-ts.labels" . | nindent 8 }}
        {{- with $v.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- $annotations := deepCopy (default (dict) $v.podAnnotations) }}
      {{- with (include "kyverno-ts.caCertificates" .) }}
      {{- /* Node.js reads NODE_EXTRA_CA_CERTS at start: restart the Pods when the bundle changes. */}}
      {{- $_ := set $annotations "checksum/ca-certificates" (sha256sum . | trunc 16) }}
      {{- end }}
      {{- with $annotations }}
      annotations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    spec:
      serviceAccountName: {{ include "kyverno-ts.serviceAccountName" . }}
      automountServiceAccountToken: {{ $v.rbac.serviceAccount.automountServiceAccountToken }}
      {{- with (include "kyverno-ts.imagePullSecrets" (dict "root" $root "secrets" $v.imagePullSecrets)) }}
      imagePullSecrets:
        {{- . | nindent 8 }}
      {{- end }}
      {{- with (coalesce $v.priorityClassName $root.Values.global.priorityClassName) }}
      priorityClassName: {{ . }}
      {{- end }}
      hostNetwork: {{ $v.hostNetwork }}
      dnsPolicy: {{ $v.dnsPolicy }}
      {{- with $v.dnsConfig }}
      dnsConfig:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      terminationGracePeriodSeconds: {{ .terminationGracePeriodSeconds }}
      {{- with $v.podSecurityContext }}
      securityContext:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      nodeSelector:
        {{- toYaml (merge (dict) (default (dict) $v.nodeSelector) $root.Values.global.nodeSelector (dict "kubernetes.io/os" "linux")) | nindent 8 }}
      {{- with (default $root.Values.global.tolerations $v.tolerations) }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with (include "kyverno-ts.affinity" .) }}
      affinity:
        {{- . | nindent 8 }}
      {{- end }}
      {{- with (include "kyverno-ts.topologySpread" .) }}
      topologySpreadConstraints:
        {{- . | nindent 8 }}
      {{- end }}
      {{- with $v.extraInitContainers }}
      initContainers:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: {{ .component }}
          image: {{ include "kyverno-ts.image" (dict "root" $root "image" .image) | quote }}
          imagePullPolicy: {{ .image.pullPolicy }}
          args:
            {{- toYaml .args | nindent 12 }}
          env:
            - name: KYVERNO_NAMESPACE
              valueFrom:
                fieldRef:
                  fieldPath: metadata.namespace
            - name: POD_NAME
              valueFrom:
                fieldRef:
                  fieldPath: metadata.name
            {{- with .env }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
            {{- if include "kyverno-ts.caCertificates" . }}
            - name: NODE_EXTRA_CA_CERTS
              value: /etc/kyverno-ts/ca-certificates.crt
            {{- end }}
            {{- with $root.Values.global.extraEnvVars }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
            {{- with .extraEnvVars }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          ports:
            {{- toYaml .ports | nindent 12 }}
          {{- range $probe := list "startupProbe" "livenessProbe" "readinessProbe" }}
          {{- with (get $v $probe) }}
          {{ $probe }}:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          {{- end }}
          {{- with .resources }}
          resources:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          {{- with .securityContext }}
          securityContext:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          {{- with .lifecycle }}
          lifecycle:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          volumeMounts:
            # The root filesystem is read-only; Node.js and the controllers write only under /tmp.
            - name: tmp
              mountPath: /tmp
            {{- if include "kyverno-ts.caCertificates" . }}
            - name: ca-certificates
              mountPath: /etc/kyverno-ts/ca-certificates.crt
              {{- if (include "kyverno-ts.caCertificatesData" .) }}
              subPath: ca-certificates.crt
              {{- end }}
              readOnly: true
            {{- end }}
            {{- if not $v.rbac.serviceAccount.automountServiceAccountToken }}
            - name: service-account-token
              mountPath: /var/run/secrets/kubernetes.io/serviceaccount
              readOnly: true
            {{- end }}
            {{- with $v.extraVolumeMounts }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
        {{- with $v.extraContainers }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      volumes:
        - name: tmp
          emptyDir:
            sizeLimit: 64Mi
        {{- if (include "kyverno-ts.caCertificatesData" .) }}
        - name: ca-certificates
          configMap:
            name: {{ include "kyverno-ts.componentName" . }}-ca-certificates
        {{- else if include "kyverno-ts.caCertificates" . }}
        - name: ca-certificates
          {{- toYaml (include "kyverno-ts.caCertificates" . | fromYaml) | nindent 10 }}
        {{- end }}
        {{- if not $v.rbac.serviceAccount.automountServiceAccountToken }}
        {{- include "kyverno-ts.projectedToken" $v.rbac.serviceAccount | nindent 8 }}
        {{- end }}
        {{- with $v.extraVolumes }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
{{- end -}}

{{/* The Pod affinity: the `affinity` short form when set, else upstream's three parts. */}}
{{- define "kyverno-ts.affinity" -}}
{{- $v := .values -}}
{{- if $v.affinity -}}
{{- toYaml $v.affinity -}}
{{- else -}}
{{- $affinity := dict -}}
{{- if and $v.antiAffinity.enabled $v.podAntiAffinity -}}{{- $_ := set $affinity "podAntiAffinity" $v.podAntiAffinity -}}{{- end -}}
{{- with $v.podAffinity -}}{{- $_ := set $affinity "podAffinity" . -}}{{- end -}}
{{- with $v.nodeAffinity -}}{{- $_ := set $affinity "nodeAffinity" . -}}{{- end -}}
{{- if $affinity -}}{{- toYaml $affinity -}}{{- end -}}
{{- end -}}
{{- end -}}

{{/* Topology spread constraints, each without a labelSelector given the component's selector labels. */}}
{{- define "kyverno-ts.topologySpread" -}}
{{- $selector := include "kyverno-ts.selectorLabels" . | fromYaml -}}
{{- $out := list -}}
{{- range .values.topologySpreadConstraints -}}
{{- $c := deepCopy . -}}
{{- if not (hasKey $c "labelSelector") -}}{{- $_ := set $c "labelSelector" (dict "matchLabels" $selector) -}}{{- end -}}
{{- $out = append $out $c -}}
{{- end -}}
{{- if $out -}}{{- toYaml $out -}}{{- end -}}
{{- end -}}

{{/* The CA bundle of a component: its caCertificates, else the global ones (data as PEM, or a volume as YAML). */}}
{{- define "kyverno-ts.caCertificatesData" -}}
{{- default "" (coalesce .values.caCertificates.data .root.Values.global.caCertificates.data) -}}
{{- end -}}

{{- define "kyverno-ts.caCertificates" -}}
{{- with (include "kyverno-ts.caCertificatesData" .) -}}
{{- . -}}
{{- else -}}
{{- with (coalesce .values.caCertificates.volume .root.Values.global.caCertificates.volume) -}}
{{- toYaml . -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The projected ServiceAccount token mounted when automountServiceAccountToken is false. */}}
{{- define "kyverno-ts.projectedToken" -}}
- name: service-account-token
  projected:
    sources:
      - serviceAccountToken:
          path: token
          expirationSeconds: {{ .projectedServiceAccountToken.expirationSeconds }}
          {{- with .projectedServiceAccountToken.audience }}
          audience: {{ . }}
          {{- end }}
      - configMap:
          name: kube-root-ca.crt
          items:
            - key: ca.crt
              path: ca.crt
      - downwardAPI:
          items:
            - path: namespace
              fieldRef:
                fieldPath: metadata.namespace
{{- end -}}

{{/* The ConfigMap holding a component's CA certificates (when given as data). */}}
{{- define "kyverno-ts.caCertificatesConfigMap" -}}
{{- with (include "kyverno-ts.caCertificatesData" .) }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "kyverno-ts.componentName" $ }}-ca-certificates
  namespace: {{ include "kyverno-ts.namespace" $.root }}
  labels:
    {{- include "kyverno-ts.labels" $ | nindent 4 }}
data:
  ca-certificates.crt: {{ . | quote }}
{{- end }}
{{- end -}}
