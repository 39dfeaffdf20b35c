{{/* Lines naming the accepted-but-not-effective values (see _accepted-values.tpl) set away from their default. */}}
{{- define "kyverno-ts.notEffective" -}}
{{- $lines := list -}}
{{- range $e := include "kyverno-ts.acceptedValues" . | fromJsonArray -}}
{{- $cur := $.Values -}}
{{- $found := true -}}
{{- range $k := splitList "." $e.path -}}
{{- if and $found (kindIs "map" $cur) (hasKey $cur $k) -}}{{- $cur = get $cur $k -}}{{- else -}}{{- $found = false -}}{{- end -}}
{{- end -}}
{{- if $found -}}
{{- range $k := default (list) $e.omit -}}{{- $cur = omit $cur $k -}}{{- end -}}
{{- if ne (toJson $cur) (toJson $e.default) -}}
{{- $lines = append $lines (printf "  - %s: %s" $e.path $e.reason) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- join "\n" $lines -}}
{{- end -}}
