{{- define "kyverno-ts.acceptedValues" -}}[]{{- end -}}
