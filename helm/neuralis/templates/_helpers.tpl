{{- define "neuralis.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "neuralis.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "neuralis.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "neuralis.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "neuralis.secretName" -}}
{{- if .Values.secret.existingSecret -}}{{ .Values.secret.existingSecret }}{{- else -}}{{ include "neuralis.fullname" . }}{{- end -}}
{{- end -}}

{{/* The gRPC service name a component's probes check. */}}
{{- define "neuralis.healthService" -}}
{{- if eq . "sync" -}}neuralis.sync.v1.SyncService{{- else if eq . "policy" -}}neuralis.policy.v1.PolicyService{{- else if eq . "discovery" -}}neuralis.discovery.v1.DiscoveryService{{- else -}}{{- end -}}
{{- end -}}

{{/* One container running the given targets. */}}
{{- define "neuralis.container" -}}
{{- $root := .root -}}
- name: neuralis
  image: {{ include "neuralis.image" $root }}
  imagePullPolicy: {{ $root.Values.image.pullPolicy }}
  args:
    - serve
    - --config
    - /etc/neuralis/neuralis.yaml
    {{- range .targets }}
    - --target
    - {{ . }}
    {{- end }}
  env:
    - name: NEURALIS__LISTEN
      value: "0.0.0.0:{{ $root.Values.port }}"
    {{- if eq $root.Values.mode "distributed" }}
    - name: NEURALIS__PEERS__SYNC_URL
      value: "http://{{ include "neuralis.fullname" $root }}-sync:{{ $root.Values.port }}"
    - name: NEURALIS__PEERS__POLICY_URL
      value: "http://{{ include "neuralis.fullname" $root }}-policy:{{ $root.Values.port }}"
    {{- end }}
    {{- with $root.Values.extraEnv }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  envFrom:
    - secretRef:
        name: {{ include "neuralis.secretName" $root }}
  ports:
    - name: grpc
      containerPort: {{ $root.Values.port }}
  startupProbe:
    grpc:
      port: {{ $root.Values.port }}
      service: {{ include "neuralis.healthService" .probe | quote }}
    failureThreshold: 30
    periodSeconds: 2
  readinessProbe:
    grpc:
      port: {{ $root.Values.port }}
      service: {{ include "neuralis.healthService" .probe | quote }}
    periodSeconds: 5
  livenessProbe:
    grpc:
      port: {{ $root.Values.port }}
    periodSeconds: 10
  resources:
    {{- toYaml .resources | nindent 4 }}
  securityContext:
    {{- toYaml $root.Values.securityContext | nindent 4 }}
  volumeMounts:
    - name: config
      mountPath: /etc/neuralis
      readOnly: true
    - name: tmp
      mountPath: /tmp
    {{- with .volumeMounts }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- end -}}
