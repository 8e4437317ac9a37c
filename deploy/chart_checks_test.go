package deploy

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/routewarden/routewarden/config"
)

// The checks TestChartRender runs on each rendered object of the values matrix.

func checkDeployment(t *testing.T, c chartCase, dep kubeObject, appVersion string) {
	t.Helper()
	spec := asMap(dig(dep, "spec", "template", "spec"))
	if got := dig(dep, "spec", "replicas"); got != c.replicas {
		t.Errorf("replicas %v, want %d", got, c.replicas)
	}
	ctr := asMap(dig(spec, "containers", "0"))
	if len(asList(spec["containers"])) != 1 {
		t.Errorf("%d containers, want 1", len(asList(spec["containers"])))
	}
	if want := "ghcr.io/routewarden/routewarden:" + appVersion; ctr["image"] != want {
		t.Errorf("image %v, want %s", ctr["image"], want)
	}
	if got := strings.Join(asStrings(ctr["args"]), " "); got != "run --config /etc/routewarden/routewarden.yaml" {
		t.Errorf("args %q", got)
	}
	if asString(dig(spec, "serviceAccountName")) != "routewarden" {
		t.Errorf("serviceAccountName %v", spec["serviceAccountName"])
	}
	// Security context.
	psc := asMap(spec["securityContext"])
	sc := asMap(ctr["securityContext"])
	for _, x := range []kubeObject{psc, sc} {
		if x["runAsNonRoot"] != true || x["runAsUser"] != 65532 || asString(dig(x, "seccompProfile", "type")) != "RuntimeDefault" {
			t.Errorf("securityContext %v: want runAsNonRoot, runAsUser 65532, seccompProfile RuntimeDefault", x)
		}
	}
	if sc["readOnlyRootFilesystem"] != true || sc["allowPrivilegeEscalation"] != false || sc["privileged"] == true {
		t.Errorf("container securityContext %v: want readOnlyRootFilesystem, no privilege escalation", sc)
	}
	if got := asStrings(dig(sc, "capabilities", "drop")); !slices.Equal(got, []string{"ALL"}) {
		t.Errorf("capabilities.drop %v, want [ALL]", got)
	}
	var wantAdd []string
	if c.netBind {
		wantAdd = []string{"NET_BIND_SERVICE"}
	}
	if got := asStrings(dig(sc, "capabilities", "add")); !slices.Equal(got, wantAdd) {
		t.Errorf("capabilities.add %v, want %v (BGP port %d)", got, wantAdd, c.bgpPort)
	}
	if (c.bgpPort < 1024) != c.netBind {
		t.Fatalf("bad expectation: port %d, NET_BIND_SERVICE %v", c.bgpPort, c.netBind)
	}
	// Ports and probes.
	ports := map[string]int{}
	for _, p := range asList(ctr["ports"]) {
		ports[asString(dig(p, "name"))], _ = dig(p, "containerPort").(int)
	}
	if want := 2 + min(c.bmpPort, 1) + min(c.rtrPort, 1); ports["http"] != 9479 || ports["bgp"] != c.bgpPort ||
		ports["bmp"] != c.bmpPort || ports["rtr"] != c.rtrPort || len(ports) != want {
		t.Errorf("container ports %v, want http 9479, bgp %d, bmp %d, rtr %d (0: none)", ports, c.bgpPort, c.bmpPort, c.rtrPort)
	}
	for probe, path := range map[string]string{"livenessProbe": "/healthz", "readinessProbe": "/readyz"} {
		if asString(dig(ctr, probe, "httpGet", "path")) != path || asString(dig(ctr, probe, "httpGet", "port")) != "http" {
			t.Errorf("%s %v, want GET %s on port http", probe, ctr[probe], path)
		}
	}
	if dig(ctr, "resources", "requests") == nil || dig(ctr, "resources", "limits", "memory") == nil {
		t.Errorf("resources %v: want requests and a memory limit", ctr["resources"])
	}
	// Networking and placement.
	if (spec["hostNetwork"] == true) != c.hostNetwork {
		t.Errorf("hostNetwork %v, want %v", spec["hostNetwork"], c.hostNetwork)
	}
	if c.hostNetwork && spec["dnsPolicy"] != "ClusterFirstWithHostNet" {
		t.Errorf("dnsPolicy %v, want ClusterFirstWithHostNet with hostNetwork", spec["dnsPolicy"])
	}
	anti := dig(spec, "affinity", "podAntiAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "0", "topologyKey")
	if c.replicas > 1 && c.hostNetwork && anti != "kubernetes.io/hostname" {
		t.Errorf("affinity %v: HA with hostNetwork needs replicas on different nodes", spec["affinity"])
	}
	if c.replicas == 1 && spec["affinity"] != nil {
		t.Errorf("affinity %v with one replica", spec["affinity"])
	}
	// The router ID: from the config, or the pod's IP. The Go runtime's memory limit: the container's.
	var routerIDEnv, memLimitEnv any
	for _, e := range asList(ctr["env"]) {
		switch dig(e, "name") {
		case "ROUTEWARDEN_BGP_ROUTERID":
			routerIDEnv = dig(e, "valueFrom", "fieldRef", "fieldPath")
		case "GOMEMLIMIT":
			memLimitEnv = dig(e, "valueFrom", "resourceFieldRef", "resource")
		}
	}
	if memLimitEnv != "limits.memory" {
		t.Errorf("GOMEMLIMIT from %v: want the container's limits.memory", memLimitEnv)
	}
	if c.hostNetwork == (routerIDEnv != nil) || (routerIDEnv != nil && routerIDEnv != "status.podIP") {
		t.Errorf("ROUTEWARDEN_BGP_ROUTERID from %v: want status.podIP exactly when not hostNetwork", routerIDEnv)
	}
	// Every mount is read-only.
	for _, m := range asList(ctr["volumeMounts"]) {
		if dig(m, "readOnly") != true {
			t.Errorf("volume mount %v is not read-only", m)
		}
	}
}

func checkServices(t *testing.T, c chartCase, objs []kubeObject) {
	t.Helper()
	svc := mustFind(t, objs, "Service", "routewarden")
	if asString(dig(svc, "spec", "type")) != "ClusterIP" || dig(svc, "spec", "ports", "0", "port") != 9479 ||
		asString(dig(svc, "spec", "ports", "0", "targetPort")) != "http" || len(asList(dig(svc, "spec", "ports"))) != 1 {
		t.Errorf("metrics Service spec %v: want ClusterIP, port 9479 → http", svc["spec"])
	}
	bgp := findObject(objs, "Service", "routewarden-bgp")
	if got := asString(dig(bgp, "spec", "type")); got != c.bgpService {
		t.Fatalf("BGP Service type %q, want %q", got, c.bgpService)
	}
	if bgp != nil {
		if dig(bgp, "spec", "ports", "0", "port") != 179 || asString(dig(bgp, "spec", "ports", "0", "targetPort")) != "bgp" ||
			asString(dig(bgp, "spec", "ports", "0", "protocol")) != "TCP" {
			t.Errorf("BGP Service ports %v: want 179/TCP → bgp", dig(bgp, "spec", "ports"))
		}
		svcPorts := map[string]int{}
		for _, p := range asList(dig(bgp, "spec", "ports"))[1:] {
			if asString(dig(p, "targetPort")) == asString(dig(p, "name")) {
				svcPorts[asString(dig(p, "name"))], _ = dig(p, "port").(int)
			}
		}
		if want := min(c.bmpPort, 1) + min(c.rtrPort, 1); svcPorts["bmp"] != c.bmpPort || svcPorts["rtr"] != c.rtrPort ||
			len(asList(dig(bgp, "spec", "ports"))) != 1+want {
			t.Errorf("BGP Service ports %v: want BMP %d → bmp, RTR %d → rtr (0: none)", dig(bgp, "spec", "ports"), c.bmpPort, c.rtrPort)
		}
		if dig(bgp, "spec", "publishNotReadyAddresses") != true {
			t.Error("the BGP Service must publish not-ready pods (readiness follows the Kubernetes API)")
		}
	}
}

var statPath = regexp.MustCompile(`cannot read "(/[^"]+)"`)

// checkConfig loads the ConfigMap's routewarden.yaml with routewarden's own loader (config.Load, as `run` and
// `validate-config` do). The only problems allowed are files that do not exist here but are mounted from Secrets
// in the pod; every mounted Secret key is such a file.
func checkConfig(t *testing.T, c chartCase, objs []kubeObject, dep kubeObject) {
	t.Helper()
	cm := mustFind(t, objs, "ConfigMap", "routewarden")
	data := asString(dig(cm, "data", "routewarden.yaml"))
	for _, plain := range []string{"password:", "bearerToken:", "Secret:"} {
		if strings.Contains(data, plain) {
			t.Errorf("the config contains %q:\n%s", plain, data)
		}
	}
	file := writeTemp(t, "routewarden.yaml", data)
	if c.hostNetwork {
		t.Setenv("ROUTEWARDEN_BGP_ROUTERID", "")
	} else {
		t.Setenv("ROUTEWARDEN_BGP_ROUTERID", "10.244.1.5") // what the pod gets from status.podIP
	}
	cfg, problems, err := config.Load(file)
	if err != nil || cfg == nil {
		t.Fatalf("config.Load: %v %v", err, problems)
	}
	referenced := map[string]bool{}
	for _, p := range problems {
		m := statPath.FindStringSubmatch(p.Message)
		if !strings.Contains(p.Message, "cannot read") || m == nil || !strings.HasPrefix(m[1], "/etc/routewarden/secrets/") {
			t.Errorf("config problem: %s", p)
			continue
		}
		referenced[m[1]] = true
	}
	// The files the pod has: Secret volumes' items under their mount paths.
	spec := asMap(dig(dep, "spec", "template", "spec"))
	vols := map[string]kubeObject{}
	for _, v := range asList(spec["volumes"]) {
		vols[asString(dig(v, "name"))] = asMap(v)
	}
	mounted := map[string]bool{}
	gotSecrets := map[string][]string{}
	for _, m := range asList(dig(spec, "containers", "0", "volumeMounts")) {
		v := vols[asString(dig(m, "name"))]
		if v == nil || v["secret"] == nil {
			continue
		}
		secret := asString(dig(v, "secret", "secretName"))
		if mode := dig(v, "secret", "defaultMode"); mode != 0o440 {
			t.Errorf("Secret volume %s has defaultMode %v, want 0440", secret, mode)
		}
		if asString(dig(m, "mountPath")) != "/etc/routewarden/secrets/"+secret {
			t.Errorf("Secret %s mounted at %v", secret, dig(m, "mountPath"))
		}
		for _, it := range asList(dig(v, "secret", "items")) {
			mounted[asString(dig(m, "mountPath"))+"/"+asString(dig(it, "path"))] = true
			gotSecrets[secret] = append(gotSecrets[secret], asString(dig(it, "key")))
		}
	}
	if !mapsEqual(mounted, referenced) {
		t.Errorf("Secret files mounted %v, referenced by the config %v: want the same", sortedKeys(mounted), sortedKeys(referenced))
	}
	want := c.secrets
	if want == nil {
		want = map[string][]string{}
	}
	if fmt.Sprint(gotSecrets) != fmt.Sprint(want) {
		t.Errorf("Secret keys mounted %v, want %v", gotSecrets, want)
	}
	if cfg.BGP.ListenPort != c.bgpPort {
		t.Errorf("bgp.listenPort %d, want %d", cfg.BGP.ListenPort, c.bgpPort)
	}
	if cfg.HTTP.Listen != ":9479" {
		t.Errorf("http.listen %q", cfg.HTTP.Listen)
	}
	if cfg.BGP.RouterID == "" || cfg.BGP.ASN == 0 || len(cfg.BGP.Neighbors)+len(cfg.BGP.DynamicNeighbors) == 0 {
		t.Errorf("bgp %+v: want a router ID, an ASN and peers", cfg.BGP)
	}
	if c.file == "service-lb-179.yaml" && cfg.BGP.ASN != 4200000000 {
		t.Errorf("4-byte ASN rendered as %d", cfg.BGP.ASN)
	}
}
