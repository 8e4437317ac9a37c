{{/* Names and labels. */}}
{{- define "routewarden.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "routewarden.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "routewarden.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "routewarden.selectorLabels" -}}
app.kubernetes.io/name: {{ include "routewarden.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "routewarden.labels" -}}
helm.sh/chart: {{ include "routewarden.chart" . }}
{{ include "routewarden.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: routewarden
{{- end }}

{{- define "routewarden.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "routewarden.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "routewarden.image" -}}
{{- $tag := .Values.image.tag | default .Chart.AppVersion }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository $tag }}
{{- end }}
{{- end }}

{{/*
routewarden.state: the config as routewarden reads it, and what the pod needs for it, as YAML
(use with fromYaml):
  config:      routewarden.yaml: values' config with secret references replaced by file paths and the
               BGP listen port filled in;
  secrets:     Secret name -> list of keys to mount (under /etc/routewarden/secrets/<name>/<key>);
  bgpPort:     the BGP listen port;  httpPort: the port of config.http.listen;
  bmpPort:     the port of config.bgp.bmp.listen, 0 when the BMP station is off;
  rtrPort:     the port of config.rtr.listen (default 8282), 0 unless config.rtr.enabled;
  routerIdFromPodIP: true when config.bgp.routerId is empty (ROUTEWARDEN_BGP_ROUTERID from status.podIP);
  netBindService: whether the container gets NET_BIND_SERVICE.
It fails on plain secrets in values and on settings that cannot work.
*/}}
{{- define "routewarden.state" -}}
{{- $v := .Values }}
{{- $cfg := deepCopy ($v.config | default dict) }}
{{- $secrets := dict }}
{{- $bgp := $cfg.bgp | default dict }}
{{- $_ := set $cfg "bgp" $bgp }}
{{- $kube := $cfg.kubernetes | default dict }}
{{- $_ := set $kube "ciliumNamespace" $v.ciliumNamespace }}
{{- $_ := set $cfg "kubernetes" $kube }}
{{- include "routewarden.requirePeers" $bgp }}
{{- if not $bgp.listenPort }}
{{- $_ := set $bgp "listenPort" 1179 }}
{{- end }}
{{- $port := int $bgp.listenPort }}
{{- $routerIdFromPodIP := false }}
{{- if not $bgp.routerId }}
{{- if $v.bgp.hostNetwork }}
{{- fail "bgp.hostNetwork: set config.bgp.routerId (an IPv4 address that is no node's): the pod's IP is its node's IP, which is that node's own Cilium router ID" }}
{{- end }}
{{- $_ := unset $bgp "routerId" }}
{{- $routerIdFromPodIP = true }}
{{- end }}
{{- range $kind := list "neighbors" "dynamicNeighbors" }}
{{- range $i, $n := (get $bgp $kind | default list) }}
{{- $where := printf "config.bgp.%s[%d]" $kind $i }}
{{- include "routewarden.noPlainSecrets" (list $where $n) }}
{{- $ref := $n.md5Secret }}
{{- if and $ref $n.passwordFile }}
{{- fail (printf "%s: md5Secret and passwordFile are exclusive" $where) }}
{{- end }}
{{- if and (not $ref) (not $n.passwordFile) $v.bgp.md5Secret $v.bgp.md5Secret.name }}
{{- $ref = $v.bgp.md5Secret }}
{{- end }}
{{- if $ref }}
{{- $_ := set $n "passwordFile" (include "routewarden.secretFile" (dict "secrets" $secrets "ref" $ref "key" "password" "where" (printf "%s.md5Secret" $where))) }}
{{- end }}
{{- $_ := unset $n "md5Secret" }}
{{- end }}
{{- end }}
{{- $alerting := $cfg.alerting | default dict }}
{{- range $kind := list "alertmanagers" "webhooks" }}
{{- range $i, $e := (get $alerting $kind | default list) }}
{{- $where := printf "config.alerting.%s[%d]" $kind $i }}
{{- include "routewarden.noPlainSecrets" (list $where $e) }}
{{- with $e.basicAuthSecret }}
{{- if $e.passwordFile }}{{ fail (printf "%s: basicAuthSecret and passwordFile are exclusive" $where) }}{{ end }}
{{- if not $e.username }}{{ fail (printf "%s: basicAuthSecret needs username" $where) }}{{ end }}
{{- $_ := set $e "passwordFile" (include "routewarden.secretFile" (dict "secrets" $secrets "ref" . "key" "password" "where" (printf "%s.basicAuthSecret" $where))) }}
{{- end }}
{{- with $e.bearerTokenSecret }}
{{- if $e.bearerTokenFile }}{{ fail (printf "%s: bearerTokenSecret and bearerTokenFile are exclusive" $where) }}{{ end }}
{{- $_ := set $e "bearerTokenFile" (include "routewarden.secretFile" (dict "secrets" $secrets "ref" . "key" "token" "where" (printf "%s.bearerTokenSecret" $where))) }}
{{- end }}
{{- with $e.caSecret }}
{{- if $e.caFile }}{{ fail (printf "%s: caSecret and caFile are exclusive" $where) }}{{ end }}
{{- $_ := set $e "caFile" (include "routewarden.secretFile" (dict "secrets" $secrets "ref" . "key" "ca.crt" "where" (printf "%s.caSecret" $where))) }}
{{- end }}
{{- with $e.tlsSecret }}
{{- if or $e.certFile $e.keyFile }}{{ fail (printf "%s: tlsSecret and certFile/keyFile are exclusive" $where) }}{{ end }}
{{- $w := printf "%s.tlsSecret" $where }}
{{- $_ := set $e "certFile" (include "routewarden.secretFile" (dict "secrets" $secrets "ref" (dict "name" .name "key" (.certKey | default "tls.crt")) "key" "" "where" $w)) }}
{{- $_ := set $e "keyFile" (include "routewarden.secretFile" (dict "secrets" $secrets "ref" (dict "name" .name "key" (.keyKey | default "tls.key")) "key" "" "where" $w)) }}
{{- if .caKey }}
{{- if $e.caFile }}{{ fail (printf "%s: tlsSecret.caKey and caFile/caSecret are exclusive" $where) }}{{ end }}
{{- $_ := set $e "caFile" (include "routewarden.secretFile" (dict "secrets" $secrets "ref" (dict "name" .name "key" .caKey) "key" "" "where" $w)) }}
{{- end }}
{{- end }}
{{- range $k := list "basicAuthSecret" "bearerTokenSecret" "caSecret" "tlsSecret" }}
{{- $_ := unset $e $k }}
{{- end }}
{{- end }}
{{- end }}
{{- $http := ($cfg.http | default dict).listen | default ":9479" }}
{{- $httpPort := regexFind "[0-9]+$" $http }}
{{- if not $httpPort }}{{ fail (printf "config.http.listen: %q has no port" $http) }}{{ end }}
{{- $bmp := (($cfg.bgp | default dict).bmp | default dict).listen | default "" }}
{{- $bmpPort := 0 }}
{{- if $bmp }}
{{- $bmpPort = regexFind "[0-9]+$" $bmp }}
{{- if not $bmpPort }}{{ fail (printf "config.bgp.bmp.listen: %q has no port" $bmp) }}{{ end }}
{{- end }}
{{- $rtr := $cfg.rtr | default dict }}
{{- $rtrPort := 0 }}
{{- if $rtr.enabled }}
{{- $rtrPort = regexFind "[0-9]+$" ($rtr.listen | default ":8282") }}
{{- if not $rtrPort }}{{ fail (printf "config.rtr.listen: %q has no port" $rtr.listen) }}{{ end }}
{{- end }}
{{- if and (gt (int $v.replicas) 1) (not $v.bgp.hostNetwork) }}
{{- fail "replicas > 1 needs bgp.hostNetwork: true: behind one Service every BGP session reaches only one replica, so each replica would see part of the nodes and report the others' CIDRs as missing-route" }}
{{- end }}
{{- $nbs := false }}
{{- if eq $v.bgp.netBindService "always" }}{{ $nbs = true }}
{{- else if eq $v.bgp.netBindService "auto" }}{{ $nbs = lt $port 1024 }}
{{- else if ne $v.bgp.netBindService "never" }}{{ fail (printf "bgp.netBindService: %q is not auto, always or never" $v.bgp.netBindService) }}
{{- end }}
config:
{{- toYaml $cfg | nindent 2 }}
secrets:
{{- range $name := keys $secrets | sortAlpha }}
  {{ $name }}: {{ get $secrets $name | keys | sortAlpha | toJson }}
{{- else }} {}
{{- end }}
bgpPort: {{ $port }}
httpPort: {{ $httpPort }}
bmpPort: {{ $bmpPort }}
rtrPort: {{ $rtrPort }}
routerIdFromPodIP: {{ $routerIdFromPodIP }}
netBindService: {{ $nbs }}
{{- end }}

{{/* routewarden.secretFile: records a Secret key to mount and prints its file path.
  dict: secrets (name -> dict of keys), ref ({name, key}), key (the default key), where (for messages). */}}
{{- define "routewarden.secretFile" -}}
{{- $name := .ref.name | default "" }}
{{- if not $name }}{{ fail (printf "%s: name (an existing Secret) is required" .where) }}{{ end }}
{{- if not (regexMatch "^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$" $name) }}{{ fail (printf "%s: %q is not a Secret name" .where $name) }}{{ end }}
{{- $key := .ref.key | default .key }}
{{- if not (regexMatch "^[-._a-zA-Z0-9]+$" $key) }}{{ fail (printf "%s: %q is not a Secret key" .where $key) }}{{ end }}
{{- if not (hasKey .secrets $name) }}{{ $_ := set .secrets $name dict }}{{ end }}
{{- $_ := set (get .secrets $name) $key true }}
{{- printf "/etc/routewarden/secrets/%s/%s" $name $key }}
{{- end }}

{{/* routewarden.noPlainSecrets: fails when a secret is written into values. (list where entry) */}}
{{- define "routewarden.noPlainSecrets" -}}
{{- $where := index . 0 }}
{{- range $k := list "password" "bearerToken" "token" "key" "cert" }}
{{- if hasKey (index $ 1) $k }}
{{- fail (printf "%s.%s: secrets are never taken from values; create a Secret and reference it (md5Secret, basicAuthSecret, bearerTokenSecret, tlsSecret, caSecret)" $where $k) }}
{{- end }}
{{- end }}
{{- end }}

{{/* routewarden.secretVolume: the volume name of a Secret. */}}
{{- define "routewarden.secretVolume" -}}
{{- printf "secret-%s" (sha256sum . | trunc 10) }}
{{- end }}

{{/* routewarden.requirePeers: the install names routewarden's ASN and its peers (the nodes' ranges, each with
  an ASN); there is no accept-all default. (config.bgp) */}}
{{- define "routewarden.requirePeers" -}}
{{- if not .asn }}
{{- fail "config.bgp.asn is required: routewarden's own AS number, the peerASN your nodes configure for it (e.g. --set config.bgp.asn=65000)" }}
{{- end }}
{{- if not (or .dynamicNeighbors .neighbors) }}
{{- fail "config.bgp.dynamicNeighbors (or neighbors) is required: name your nodes' range and their ASN, e.g. --set 'config.bgp.dynamicNeighbors[0].prefix=10.0.0.0/24' --set 'config.bgp.dynamicNeighbors[0].asn=65010' (the chart has no accept-all default)" }}
{{- end }}
{{- range $i, $n := .dynamicNeighbors | default list }}
{{- if not $n.asn }}
{{- fail (printf "config.bgp.dynamicNeighbors[%d].asn is required: the ASN of the nodes in %v (the chart accepts no range of peers with any ASN)" $i $n.prefix) }}
{{- end }}
{{- if hasSuffix "/0" (toString $n.prefix) }}
{{- fail (printf "config.bgp.dynamicNeighbors[%d].prefix: %v accepts a session from any address; name your nodes' range" $i $n.prefix) }}
{{- end }}
{{- end }}
{{- end }}

{{/* routewarden.hostBlock: an address or CIDR as a NetworkPolicy ipBlock CIDR. */}}
{{- define "routewarden.hostBlock" -}}
{{- if contains "/" . }}{{ . }}{{ else if contains ":" . }}{{ printf "%s/128" . }}{{ else }}{{ printf "%s/32" . }}{{ end }}
{{- end }}
