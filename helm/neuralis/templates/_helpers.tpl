{{- define "neuralis.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "neuralis.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
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

{{- define "neuralis.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}{{ .Values.serviceAccount.name | default (include "neuralis.fullname" .) }}{{- else -}}{{ .Values.serviceAccount.name | default "default" }}{{- end -}}
{{- end -}}

{{- define "neuralis.secretName" -}}
{{- .Values.secret.existingSecret | default (include "neuralis.fullname" .) -}}
{{- end -}}

{{- define "neuralis.keyFilesName" -}}
{{- .Values.keyFiles.existingSecret | default (printf "%s-keys" (include "neuralis.fullname" .)) -}}
{{- end -}}

{{- define "neuralis.hasKeyFiles" -}}
{{- if or .Values.keyFiles.existingSecret .Values.keyFiles.files -}}true{{- end -}}
{{- end -}}

{{/* The gRPC service name a component's probes ask about ("" for the whole server). */}}
{{- define "neuralis.healthService" -}}
{{- if eq . "sync" -}}neuralis.sync.v1.SourceService{{- else if eq . "policy" -}}neuralis.policy.v1.PolicyService{{- else if eq . "discovery" -}}neuralis.discovery.v1.DiscoveryService{{- end -}}
{{- end -}}

{{/* The Service a component is reached at. */}}
{{- define "neuralis.serviceHost" -}}
{{- if eq .component "all-in-one" -}}{{ include "neuralis.fullname" .root }}{{- else -}}{{ include "neuralis.fullname" .root }}-{{ .component }}{{- end -}}
{{- end -}}

{{- define "neuralis.scheme" -}}
{{- if .Values.tls.enabled -}}https{{- else -}}http{{- end -}}
{{- end -}}

{{/* Whether verification keys come from the Secret (hs256) rather than key files. */}}
{{- define "neuralis.hs256" -}}
{{- $identity := .Values.config.identity | default dict -}}
{{- $keys := $identity.keys | default dict -}}
{{- if eq ($keys.kind | default "hs256") "hs256" -}}true{{- end -}}
{{- end -}}

{{/* Whether service credentials are verified and signed with an HS256 secret from the
     Secret (rather than key files and a signing_key). */}}
{{- define "neuralis.serviceHs256" -}}
{{- $service := .Values.config.service_identity | default dict -}}
{{- $keys := $service.keys | default dict -}}
{{- if eq ($keys.kind | default "hs256") "hs256" -}}true{{- end -}}
{{- end -}}

{{/* The Secret keys each distributed service reads: least privilege per service. Every
     service verifies service credentials (policy: Evaluate; sync: its index feed) and
     discovery and sync sign them. */}}
{{- define "neuralis.secretKeys" -}}
{{- $root := .root -}}
{{- $keys := list -}}
{{- if eq .component "sync" }}{{ $keys = list "NEURALIS__SYNC__INDEX__URL" "NEURALIS__SYNC__BUS__URL" }}{{ end -}}
{{- if eq .component "policy" }}{{ $keys = list "NEURALIS__POLICY__STORE__URL" }}{{ end -}}
{{- if eq .component "discovery" }}{{ $keys = list "NEURALIS__SYNC__BUS__URL" }}{{ end -}}
{{- if include "neuralis.hs256" $root }}{{ $keys = append $keys "NEURALIS__IDENTITY__KEYS__SECRET" }}{{ end -}}
{{- if include "neuralis.serviceHs256" $root }}{{ $keys = append $keys "NEURALIS__SERVICE_IDENTITY__KEYS__SECRET" }}{{ end -}}
{{- toJson $keys -}}
{{- end -}}

{{/* Fails the render, naming what is missing, where the schema cannot say it. */}}
{{- define "neuralis.validate" -}}
{{- if eq .Values.mode "distributed" -}}
{{- if not .Values.secret.existingSecret -}}
{{- $needed := list -}}
{{- range $component := list "sync" "discovery" "policy" -}}
{{- range $key := include "neuralis.secretKeys" (dict "root" $ "component" $component) | fromJsonArray -}}
{{- if not (index $.Values.secret.values $key) -}}{{- $needed = append $needed $key -}}{{- end -}}
{{- end -}}
{{- end -}}
{{- with $needed | uniq -}}
{{- fail (printf "distributed mode needs secret.values.%s (or secret.existingSecret naming a Secret that holds it)" (join ", secret.values." .)) -}}
{{- end -}}
{{- end -}}
{{- if not (include "neuralis.hs256" .) -}}
{{- if not (include "neuralis.hasKeyFiles" .) -}}
{{- fail (printf "config.identity.keys.kind %s reads key files: set keyFiles.files or keyFiles.existingSecret (mounted at /etc/neuralis/keys)" .Values.config.identity.keys.kind) -}}
{{- end -}}
{{- end -}}
{{- if not (include "neuralis.serviceHs256" .) -}}
{{- if not (include "neuralis.hasKeyFiles" .) -}}
{{- fail (printf "config.service_identity.keys.kind %s reads key files (and a signing_key): set keyFiles.files or keyFiles.existingSecret (mounted at /etc/neuralis/keys)" .Values.config.service_identity.keys.kind) -}}
{{- end -}}
{{- end -}}
{{- include "neuralis.connectionBudget" . -}}
{{- if not .Values.sync.internal.enabled -}}
{{- fail "sync.internal.enabled: discovery reads sync's index feed on the internal port (internal_listen); it cannot be turned off in distributed mode" -}}
{{- end -}}
{{- end -}}
{{- if and .Values.tls.enabled (not .Values.tls.existingSecret) -}}
{{- fail "tls.enabled needs tls.existingSecret: a kubernetes.io/tls Secret with tls.crt, tls.key and ca.crt" -}}
{{- end -}}
{{- if and .Values.tls.mutual (not .Values.tls.enabled) -}}
{{- fail "tls.mutual needs tls.enabled" -}}
{{- end -}}
{{- end -}}

{{/* The configuration file: the values' `config`, verbatim. */}}
{{- define "neuralis.configFile" -}}
{{- toYaml (.Values.config | default dict) -}}
{{- end -}}

{{/* The backends distributed mode decides, per service: each process is told only
     about the stores it opens (a sync pod never reads the policy store's settings). */}}
{{- define "neuralis.backendEnv" -}}
{{- $root := .root -}}
{{- $env := dict -}}
{{- if eq .component "sync" }}{{ $_ := set $env "NEURALIS__SYNC__INDEX__KIND" "postgres" }}{{ end -}}
{{- if eq .component "policy" }}{{ $_ := set $env "NEURALIS__POLICY__STORE__BACKEND" "postgres" }}{{ $_ := set $env "NEURALIS__POLICY__STORE__MAX_CONNECTIONS" (toString $root.Values.policy.store.maxConnections) }}{{ end -}}
{{- if has .component (list "sync" "discovery") }}{{ $_ := set $env "NEURALIS__SYNC__BUS__KIND" "redis" }}{{ end -}}
{{- /* The migration Job changes the schema once per release; the pods only check it. */ -}}
{{- if and (has .component (list "sync" "policy")) $root.Values.migrations.job.enabled }}{{ $_ := set $env (printf "NEURALIS__%s__MIGRATIONS" (upper .component)) "check" }}{{ end -}}
{{- if eq .component "discovery" }}{{ $_ := set $env "NEURALIS__DISCOVERY__INVENTORY__MAX_BYTES" (toString (int64 $root.Values.discovery.inventory.maxBytes)) }}{{ end -}}
{{- if include "neuralis.hs256" $root }}{{ $_ := set $env "NEURALIS__IDENTITY__KEYS__KIND" "hs256" }}{{ end -}}
{{- if include "neuralis.serviceHs256" $root }}{{ $_ := set $env "NEURALIS__SERVICE_IDENTITY__KEYS__KIND" "hs256" }}{{ end -}}
{{- toJson $env -}}
{{- end -}}

{{/* Pod-level settings shared by every workload. */}}
{{/* The pod spec's common part. `.values` is the component's values (sync, discovery,
     policy or allInOne): a component's own scheduling keys win over the chart-wide ones;
     nodeSelector maps are merged, tolerations and pull secrets added up. */}}
{{- define "neuralis.podSpec" -}}
{{- $root := .root -}}
{{- $values := .values -}}
serviceAccountName: {{ include "neuralis.componentServiceAccountName" . }}
automountServiceAccountToken: false
terminationGracePeriodSeconds: {{ $root.Values.terminationGracePeriodSeconds }}
securityContext:
  {{- toYaml $root.Values.podSecurityContext | nindent 2 }}
{{- with ($values.priorityClassName | default $root.Values.priorityClassName) }}
priorityClassName: {{ . }}
{{- end }}
{{- with $root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with (merge (deepCopy ($values.nodeSelector | default dict)) ($root.Values.nodeSelector | default dict)) }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with (concat ($root.Values.tolerations | default list) ($values.tolerations | default list)) }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with ($values.affinity | default $root.Values.affinity) }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* Pod labels and annotations an operator adds (chart-wide, then the component's). */}}
{{- define "neuralis.podLabels" -}}
{{- with (merge (deepCopy (.values.podLabels | default dict)) (.root.Values.podLabels | default dict)) -}}
{{ toYaml . }}
{{- end -}}
{{- end -}}

{{- define "neuralis.podAnnotations" -}}
{{- with (merge (deepCopy (.values.podAnnotations | default dict)) (.root.Values.podAnnotations | default dict)) -}}
{{ toYaml . }}
{{- end -}}
{{- end -}}

{{/* The service account a component runs as: its own when it asks for one (workload
     identity per service), else the chart-wide one. */}}
{{- define "neuralis.componentServiceAccountName" -}}
{{- $account := .values.serviceAccount | default dict }}
{{- if $account.create -}}
{{ $account.name | default (printf "%s-%s" (include "neuralis.fullname" .root) .component) }}
{{- else if $account.name -}}
{{ $account.name }}
{{- else -}}
{{ include "neuralis.serviceAccountName" .root }}
{{- end -}}
{{- end -}}

{{/* Checksums that roll the pods when their configuration changes. */}}
{{- define "neuralis.checksums" -}}
checksum/config: {{ include (print .Template.BasePath "/configmap.yaml") . | sha256sum }}
checksum/secret: {{ include (print .Template.BasePath "/secret.yaml") . | sha256sum }}
checksum/keys: {{ include (print .Template.BasePath "/keyfiles.yaml") . | sha256sum }}
{{- end -}}

{{- define "neuralis.topologySpread" -}}
{{- $own := (index .root.Values .component).topologySpreadConstraints }}
{{- if $own }}
topologySpreadConstraints:
  {{- toYaml $own | nindent 2 }}
{{- else if .root.Values.topologySpread.enabled }}
topologySpreadConstraints:
  {{- range $key := list "topology.kubernetes.io/zone" "kubernetes.io/hostname" }}
  - maxSkew: {{ $.root.Values.topologySpread.maxSkew }}
    topologyKey: {{ $key }}
    whenUnsatisfiable: ScheduleAnyway
    labelSelector:
      matchLabels:
        {{- include "neuralis.selector" $ | nindent 8 }}
  {{- end }}
{{- end }}
{{- end -}}

{{/* The volumes every pod has (configuration, scratch, key files, TLS). */}}
{{- define "neuralis.volumes" -}}
- name: config
  configMap:
    name: {{ include "neuralis.fullname" . }}
- name: tmp
  emptyDir: {}
{{- if include "neuralis.hasKeyFiles" . }}
- name: keys
  secret:
    secretName: {{ include "neuralis.keyFilesName" . }}
{{- end }}
{{- if .Values.tls.enabled }}
- name: tls
  secret:
    secretName: {{ .Values.tls.existingSecret }}
{{- end }}
{{- with .Values.extraVolumes }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* PostgreSQL connections at the autoscalers' maxima fit the server's max_connections:
     policy replicas x its pool, sync replicas x the index pool (8), the migration Job. */}}
{{- define "neuralis.connectionBudget" -}}
{{- $policy := .Values.policy -}}
{{- $sync := .Values.sync -}}
{{- $policyMax := int (ternary $policy.autoscaling.maxReplicas $policy.replicas $policy.autoscaling.enabled) -}}
{{- $syncMax := int (ternary $sync.autoscaling.maxReplicas $sync.replicas $sync.autoscaling.enabled) -}}
{{- $pool := int $policy.store.maxConnections -}}
{{- $need := add (mul $policyMax $pool) (mul $syncMax 8) 2 -}}
{{- if gt (int $need) (int .Values.database.maxConnections) -}}
{{- fail (printf "PostgreSQL connections at the autoscalers' maxima: policy %d x %d + sync %d x 8 + 2 (the migration Job) = %d, over database.maxConnections %d: lower policy.autoscaling.maxReplicas or policy.store.maxConnections, or raise the server's max_connections and database.maxConnections (docs/sizing.md)" $policyMax $pool $syncMax (int $need) (int .Values.database.maxConnections)) -}}
{{- end -}}
{{- end -}}
