package interop

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// lab is one scenario's world: kube-apiserver and etcd (hack/kube-env.sh), the Cilium CRDs of a
// release, routewarden run, Cilium's operator and one agent per node, each process logging to a
// file in dir.
type lab struct {
	t          *testing.T
	tor        string // the ToR namespace (this process's)
	dir        string
	repo       string
	kubeconfig string // the admin's, https://127.0.0.1
	agentKube  string // the agents', https://10.0.0.1 (the nodes reach the API over the bridge)
	ciliumbgp  string // the release's cmd/ciliumbgp
	procs      map[string]*exec.Cmd
	nodes      map[int]bool // the nodes whose namespace is up
}

// newLab starts kube-apiserver, installs the release's CRDs and starts routewarden run with cfg
// and Cilium's operator.
func newLab(t *testing.T, release string) *lab {
	t.Helper()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	l := &lab{t: t, tor: os.Getenv(envTor), dir: t.TempDir(), repo: repo, procs: map[string]*exec.Cmd{},
		nodes: map[int]bool{}}
	t.Cleanup(l.stop)
	kube := filepath.Join(repo, "hack", "kube-env.sh")
	cmd := exec.Command(kube, "start", filepath.Join(l.dir, "kube"))
	// The agents reach the API server from their namespaces, over the bridge.
	cmd.Env = append(os.Environ(), "KUBE_ENV_APISERVER_ARGS=--bind-address=0.0.0.0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("starting kube-apiserver: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command(kube, "stop", filepath.Join(l.dir, "kube")).Run() })
	l.kubeconfig = filepath.Join(l.dir, "kube", "kubeconfig")
	l.agentKube = l.writeAgentKubeconfig()
	crds := filepath.Join(os.Getenv("ROUTEWARDEN_CRDS"), "cilium-"+release)
	args := []string{"apply", "--server-side"}
	for _, sub := range []string{"v2", "v2alpha1"} {
		if _, err := os.Stat(filepath.Join(crds, sub)); err == nil {
			args = append(args, "-f", filepath.Join(crds, sub))
		}
	}
	l.kubectl(args...)
	l.kubectl("wait", "--for=condition=Established", "--timeout=60s", "crd", "--all")
	return l
}

// writeAgentKubeconfig is the admin kubeconfig pointed at the bridge address; the serving
// certificate names 127.0.0.1 and localhost only, so the agents verify it as localhost.
func (l *lab) writeAgentKubeconfig() string {
	data, err := os.ReadFile(l.kubeconfig)
	if err != nil {
		l.t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, "server: https://127.0.0.1:") {
			indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
			line = strings.Replace(line, "127.0.0.1", torV4, 1)
			out = append(out, line, indent+"tls-server-name: localhost")
			continue
		}
		out = append(out, line)
	}
	p := filepath.Join(l.dir, "agent-kubeconfig")
	if err := os.WriteFile(p, []byte(strings.Join(out, "\n")), 0o600); err != nil {
		l.t.Fatal(err)
	}
	return p
}

// kubectl runs kubectl with the admin kubeconfig and fails the test on an error.
func (l *lab) kubectl(args ...string) string {
	l.t.Helper()
	out, err := exec.Command(os.Getenv("KUBECTL"), append([]string{"--kubeconfig", l.kubeconfig}, args...)...).CombinedOutput()
	if err != nil {
		l.t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// apply creates or updates the objects of a multi-document manifest and writes the status of
// those that carry one through the status subresource, as the kubelet and Cilium would.
func (l *lab) apply(manifest string) {
	l.t.Helper()
	f := filepath.Join(l.dir, fmt.Sprintf("apply-%d.yaml", time.Now().UnixNano()))
	if err := os.WriteFile(f, []byte(manifest), 0o600); err != nil {
		l.t.Fatal(err)
	}
	// Client-side apply: a dual-stack Node has two InternalIP addresses, which server-side apply
	// refuses (its list is keyed by type).
	l.kubectl("apply", "-f", f)
	for i, doc := range strings.Split(manifest, "\n---") {
		if !strings.Contains(doc, "\nstatus:") {
			continue
		}
		sf := filepath.Join(l.dir, fmt.Sprintf("status-%d-%d.yaml", time.Now().UnixNano(), i))
		if err := os.WriteFile(sf, []byte(doc), 0o600); err != nil {
			l.t.Fatal(err)
		}
		l.kubectl("replace", "--subresource=status", "-f", sf)
	}
}

// start runs a process (in namespace ns unless empty), logging to dir/name.log.
func (l *lab) start(name, ns string, argv ...string) {
	l.t.Helper()
	if ns != "" {
		argv = append([]string{"ip", "netns", "exec", ns}, argv...)
	}
	logf, err := os.Create(filepath.Join(l.dir, name+".log"))
	if err != nil {
		l.t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		l.t.Fatalf("starting %s: %v", name, err)
	}
	l.procs[name] = cmd
}

// kill stops the process name (SIGTERM, then SIGKILL after 10 s) and waits for it.
func (l *lab) kill(name string) {
	cmd, ok := l.procs[name]
	if !ok {
		return
	}
	delete(l.procs, name)
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// startAgent wires node i's namespace and runs its Cilium agent there.
func (l *lab) startAgent(i int, ipam string) {
	l.t.Helper()
	if !l.nodes[i] {
		if err := nodeUp(l.tor, i); err != nil {
			l.t.Fatal(err)
		}
		l.nodes[i] = true
	}
	l.start(fmt.Sprintf("agent-node%d", i), nodeNetns(l.tor, i), l.ciliumbgp, "agent",
		"--kubeconfig", l.agentKube, "--node", fmt.Sprintf("node%d", i), "--ipam", ipam)
}

// startOperator runs Cilium's operator (its BGP part) beside the API server.
func (l *lab) startOperator() {
	l.start("operator", "", l.ciliumbgp, "operator", "--kubeconfig", l.kubeconfig)
}

// stop ends every process, deletes the node namespaces and, when the test failed, shows the
// end of each log.
func (l *lab) stop() {
	for name := range l.procs {
		l.kill(name)
	}
	for i := range l.nodes {
		nodeDown(l.tor, i)
	}
	if !l.t.Failed() {
		return
	}
	logs, _ := filepath.Glob(filepath.Join(l.dir, "*.log"))
	logs = append(logs, filepath.Join(l.dir, "kube", "kube-apiserver.log"))
	for _, f := range logs {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if len(data) > 6000 {
			data = data[len(data)-6000:]
		}
		l.t.Logf("--- %s (end) ---\n%s", filepath.Base(f), data)
	}
}
