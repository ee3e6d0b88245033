{{- define "opsgate.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "opsgate.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "opsgate.labels" -}}
{{ include "opsgate.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "opsgate.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "opsgate.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "opsgate.keysSecret" -}}
{{- default (printf "%s-keys" (include "opsgate.fullname" .)) .Values.keys.existingSecret -}}
{{- end -}}

{{- define "opsgate.databaseSecret" -}}
{{- if .Values.postgresql.bundled -}}
{{- printf "%s-database" (include "opsgate.fullname" .) -}}
{{- else -}}
{{- required "database.existingSecret: name the Secret that holds the PostgreSQL URL, or set postgresql.bundled=true for a trial" .Values.database.existingSecret -}}
{{- end -}}
{{- end -}}

{{- define "opsgate.databaseSecretKey" -}}
{{- if .Values.postgresql.bundled -}}url{{- else -}}{{ .Values.database.existingSecretKey }}{{- end -}}
{{- end -}}

{{- define "opsgate.publicUrl" -}}
{{- if .Values.publicUrl -}}
{{- .Values.publicUrl -}}
{{- else if and .Values.ingress.enabled .Values.ingress.host -}}
{{- printf "%s://%s" (ternary "https" "http" .Values.ingress.tls.enabled) .Values.ingress.host -}}
{{- end -}}
{{- end -}}

{{- define "opsgate.trustProxy" -}}
{{- if .Values.trustProxy -}}
{{- .Values.trustProxy -}}
{{- else if .Values.ingress.enabled -}}
true
{{- end -}}
{{- end -}}
