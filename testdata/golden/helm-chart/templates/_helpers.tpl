{{/*
Named templates of the shop chart. `rop helm` writes this file once and keeps your edits
(`rop helm --force` writes it again).
*/}}

{{/* The chart's name: nameOverride, else the chart's own. */}}
{{- define "shop.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The release's full name, which begins every object's name as config/default's namePrefix
does: fullnameOverride; else the release's name when it holds the chart's name (release
"shop" gives the names of `kubectl kustomize config/default`); else release-chart.
At most 63 characters, the length of a DNS label.
*/}}
{{- define "shop.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := include "shop.name" . }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
An object's name: the full name, a dash and the object's own name (`suffix`), the full name
shortened so that the whole fits in 63 characters (Service names are DNS-1035 labels).
Called as (dict "suffix" "webhook-service" "context" $).
*/}}
{{- define "shop.resourceName" -}}
{{- $room := sub 62 (len .suffix) | int }}
{{- $full := include "shop.fullname" .context | trunc $room | trimSuffix "-" }}
{{- printf "%s-%s" $full .suffix }}
{{- end }}

{{/* Helm's labels, on every object of the chart. */}}
{{- define "shop.labels" -}}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}
