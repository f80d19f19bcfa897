{{/* A probe: the kubelet's native gRPC check, or, under TLS (which the kubelet's
     gRPC probe does not speak), the binary's own `neuralis health`. */}}
{{- define "neuralis.probe" -}}
{{- $root := .root -}}
{{- if $root.Values.tls.enabled -}}
exec:
  command:
    - /usr/local/bin/neuralis
    - health
    - --server
    - https://127.0.0.1:{{ $root.Values.port }}
    - --server-name
    - {{ include "neuralis.serviceHost" . }}
    - --ca-file
    - /etc/neuralis/tls/ca.crt
    {{- if $root.Values.tls.mutual }}
    - --cert-file
    - /etc/neuralis/tls/tls.crt
    - --key-file
    - /etc/neuralis/tls/tls.key
    {{- end }}
    {{- with .service }}
    - --service
    - {{ . }}
    {{- end }}
{{- else -}}
grpc:
  port: {{ $root.Values.port }}
  service: {{ .service | quote }}
{{- end }}
{{- end -}}

{{/* One container running `component` ("all-in-one" runs every service). */}}
{{- define "neuralis.container" -}}
{{- $root := .root -}}
{{- $component := .component -}}
{{- $service := include "neuralis.healthService" $component -}}
{{- $scheme := include "neuralis.scheme" $root -}}
- name: neuralis
  image: {{ include "neuralis.image" $root }}
  imagePullPolicy: {{ $root.Values.image.pullPolicy }}
  args:
    - serve
    - --config
    - /etc/neuralis/neuralis.yaml
    {{- if ne $component "all-in-one" }}
    - --target
    - {{ $component }}
    {{- end }}
  env:
    - name: NEURALIS__LISTEN
      value: "0.0.0.0:{{ $root.Values.port }}"
    {{- if eq $component "all-in-one" }}
    - name: NEURALIS__DATA_DIR
      value: /var/lib/neuralis
    {{- else }}
    - name: NEURALIS__DATA_DIR
      value: /tmp/neuralis
    {{- end }}
    {{- if eq $component "sync" }}
    - name: NEURALIS__INTERNAL_LISTEN
      value: "0.0.0.0:{{ $root.Values.sync.internal.port }}"
    {{- with $root.Values.sync.allowedRoots }}
    - name: NEURALIS__SYNC__ALLOWED_ROOTS
      value: {{ join "," . | quote }}
    {{- end }}
    {{- /* sync asks policy to forget a source's access state before deleting it */}}
    - name: NEURALIS__PEERS__POLICY_URL
      value: "{{ $scheme }}://{{ include "neuralis.fullname" $root }}-policy:{{ $root.Values.port }}"
    {{- end }}
    {{- if eq $component "discovery" }}
    - name: NEURALIS__PEERS__SYNC_FEED_URL
      value: "{{ $scheme }}://{{ include "neuralis.fullname" $root }}-sync:{{ $root.Values.sync.internal.port }}"
    - name: NEURALIS__PEERS__POLICY_URL
      value: "{{ $scheme }}://{{ include "neuralis.fullname" $root }}-policy:{{ $root.Values.port }}"
    {{- end }}
    {{- if $root.Values.tls.enabled }}
    - name: NEURALIS__TLS__CERT_FILE
      value: /etc/neuralis/tls/tls.crt
    - name: NEURALIS__TLS__KEY_FILE
      value: /etc/neuralis/tls/tls.key
    - name: NEURALIS__PEERS__CA_FILE
      value: /etc/neuralis/tls/ca.crt
    {{- if $root.Values.tls.mutual }}
    - name: NEURALIS__TLS__CLIENT_CA_FILE
      value: /etc/neuralis/tls/ca.crt
    - name: NEURALIS__PEERS__CERT_FILE
      value: /etc/neuralis/tls/tls.crt
    - name: NEURALIS__PEERS__KEY_FILE
      value: /etc/neuralis/tls/tls.key
    {{- end }}
    {{- end }}
    {{- if ne $component "all-in-one" }}
    {{- range $key, $value := include "neuralis.backendEnv" (dict "root" $root "component" $component) | fromJson }}
    - name: {{ $key }}
      value: {{ $value }}
    {{- end }}
    {{- range $key := include "neuralis.secretKeys" (dict "root" $root "component" $component) | fromJsonArray }}
    - name: {{ $key }}
      valueFrom:
        secretKeyRef:
          name: {{ include "neuralis.secretName" $root }}
          key: {{ $key }}
    {{- end }}
    {{- else if or $root.Values.secret.existingSecret $root.Values.secret.values }}
    {{- range $key, $_ := $root.Values.secret.values }}
    - name: {{ $key }}
      valueFrom:
        secretKeyRef:
          name: {{ include "neuralis.secretName" $root }}
          key: {{ $key }}
    {{- end }}
    {{- end }}
    {{- with $root.Values.extraEnv }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
    {{- with .extraEnv }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  ports:
    - name: grpc
      containerPort: {{ $root.Values.port }}
    {{- if and (eq $component "sync") $root.Values.sync.internal.enabled }}
    - name: internal
      containerPort: {{ $root.Values.sync.internal.port }}
    {{- end }}
  startupProbe:
    {{- include "neuralis.probe" (dict "root" $root "component" $component "service" $service) | nindent 4 }}
    failureThreshold: 30
    periodSeconds: 2
  readinessProbe:
    {{- include "neuralis.probe" (dict "root" $root "component" $component "service" $service) | nindent 4 }}
    periodSeconds: 5
  livenessProbe:
    {{- include "neuralis.probe" (dict "root" $root "component" $component "service" "") | nindent 4 }}
    periodSeconds: 10
    timeoutSeconds: 5
  resources:
    {{- toYaml .resources | nindent 4 }}
  securityContext:
    {{- toYaml $root.Values.securityContext | nindent 4 }}
  volumeMounts:
    - name: config
      mountPath: /etc/neuralis/neuralis.yaml
      subPath: neuralis.yaml
      readOnly: true
    - name: tmp
      mountPath: /tmp
    {{- if include "neuralis.hasKeyFiles" $root }}
    - name: keys
      mountPath: /etc/neuralis/keys
      readOnly: true
    {{- end }}
    {{- if $root.Values.tls.enabled }}
    - name: tls
      mountPath: /etc/neuralis/tls
      readOnly: true
    {{- end }}
    {{- with .volumeMounts }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- end -}}
