{{/* One container running `component` ("all-in-one" runs every service). */}}
{{- define "neuralis.container" -}}
{{- $root := .root -}}
{{- $component := .component -}}
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
    - name: NEURALIS__ADMIN_LISTEN
      value: "0.0.0.0:{{ $root.Values.admin.port }}"
    - name: NEURALIS__DRAIN_DELAY_MS
      value: {{ $root.Values.drain.delayMs | quote }}
    - name: NEURALIS__DRAIN_DEADLINE_MS
      value: {{ $root.Values.drain.deadlineMs | quote }}
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
      value: "{{ $scheme }}://{{ include "neuralis.fullname" $root }}-policy-headless:{{ $root.Values.port }}"
    {{- end }}
    {{- if eq $component "discovery" }}
    - name: NEURALIS__PEERS__SYNC_FEED_URL
      value: "{{ $scheme }}://{{ include "neuralis.fullname" $root }}-sync-headless:{{ $root.Values.sync.internal.port }}"
    - name: NEURALIS__PEERS__POLICY_URL
      value: "{{ $scheme }}://{{ include "neuralis.fullname" $root }}-policy-headless:{{ $root.Values.port }}"
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
      value: {{ $value | quote }}
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
    - name: admin
      containerPort: {{ $root.Values.admin.port }}
    {{- if and (eq $component "sync") $root.Values.sync.internal.enabled }}
    - name: internal
      containerPort: {{ $root.Values.sync.internal.port }}
    {{- end }}
  # Probes on the admin port (plain HTTP, so the same under TLS): readiness follows
  # what the service needs (discovery: policy and sync reachable); liveness only
  # that the process answers, so an outage of a peer never restarts a pod.
  startupProbe:
    httpGet:
      path: /livez
      port: admin
    failureThreshold: 30
    periodSeconds: 2
  readinessProbe:
    httpGet:
      path: /readyz
      port: admin
    periodSeconds: 5
  livenessProbe:
    httpGet:
      path: /livez
      port: admin
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
    {{- with $root.Values.extraVolumeMounts }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- end -}}
