package testkube

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// object is one object of the control plane, as reset names it.
type object struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
}

// objects lists every object of every kind the API server could list and
// delete when first asked, CRs included.
func (e *Env) objects() (map[object]bool, error) {
	if e.kinds == "" { // once: a CRD a test adds is deleted with its objects
		kinds, err := e.kubectlStdout("api-resources", "--verbs=list,delete", "-o", "name")
		if err != nil {
			return nil, err
		}
		e.kinds = strings.Join(strings.Fields(kinds), ",")
	}
	out, err := e.kubectlStdout("get", e.kinds, "--all-namespaces", "-o",
		`jsonpath={range .items[*]}{.apiVersion}{"\t"}{.kind}{"\t"}{.metadata.namespace}{"\t"}{.metadata.name}{"\n"}{end}`)
	if err != nil {
		return nil, err
	}
	all := map[object]bool{}
	for line := range strings.Lines(out) {
		f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		if len(f) != 4 {
			return nil, fmt.Errorf("kubectl get printed %q", line)
		}
		all[object{APIVersion: f[0], Kind: f[1], Namespace: f[2], Name: f[3]}] = true
	}
	return all, nil
}

// kubectlStdout runs kubectl and returns what it printed on stdout (its
// warnings go to stderr).
func (e *Env) kubectlStdout(args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(e.kubectl, append([]string{"--kubeconfig", e.Kubeconfig}, args...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("kubectl %s: %w: %s", args[0], err, stderr.String())
	}
	return stdout.String(), nil
}

// reset deletes what is not in the baseline, the objects the control plane
// had when it was lent first: what the test created, namespaces last. With
// no controller-manager a deleted namespace would stay Terminating, so reset
// finalizes it itself (its objects are gone by then).
func (e *Env) reset() error {
	now, err := e.objects()
	if err != nil {
		return err
	}
	var objs, namespaces []object
	for o := range now {
		switch {
		case e.baseline[o]:
		case o.APIVersion == "v1" && o.Kind == "Namespace":
			namespaces = append(namespaces, o)
		default:
			objs = append(objs, o)
		}
	}
	for _, batch := range [][]object{objs, namespaces} {
		if len(batch) == 0 {
			continue
		}
		if err := e.deleteObjects(batch); err != nil {
			return err
		}
	}
	for _, ns := range namespaces {
		if err := e.finalize(ns.Name); err != nil {
			return err
		}
	}
	return nil
}

// finalize empties a deleted namespace's finalizers, which the namespace
// controller would have done once its objects were gone.
func (e *Env) finalize(name string) error {
	out, err := e.Kubectl("get", "namespace", name, "-o", "json")
	if err != nil {
		if strings.Contains(out, "NotFound") {
			return nil
		}
		return fmt.Errorf("reading namespace %s: %w: %s", name, err, out)
	}
	var ns map[string]any
	if err := json.Unmarshal([]byte(out), &ns); err != nil {
		return fmt.Errorf("reading namespace %s: %w", name, err)
	}
	ns["spec"] = map[string][]string{"finalizers": {}}
	f, err := writeJSON(e.Dir, "finalize.json", ns)
	if err != nil {
		return err
	}
	if out, err := e.Kubectl("replace", "--raw", "/api/v1/namespaces/"+name+"/finalize", "-f", f); err != nil &&
		!strings.Contains(out, "NotFound") {
		return fmt.Errorf("finalizing namespace %s: %w: %s", name, err, out)
	}
	return nil
}

// deleteObjects deletes the objects, namespaces without waiting for them.
func (e *Env) deleteObjects(objs []object) error {
	items := []any{}
	for _, o := range objs {
		meta := map[string]string{"name": o.Name}
		if o.Namespace != "" {
			meta["namespace"] = o.Namespace
		}
		items = append(items, map[string]any{"apiVersion": o.APIVersion, "kind": o.Kind, "metadata": meta})
	}
	f, err := writeJSON(e.Dir, "reset.json", map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		return err
	}
	wait := strconv.FormatBool(!slices.ContainsFunc(objs, func(o object) bool { return o.Kind == "Namespace" }))
	if out, err := e.Kubectl("delete", "--ignore-not-found", "--wait="+wait, "--timeout=60s", "-f", f); err != nil {
		return fmt.Errorf("deleting what the test created: %w: %s", err, out)
	}
	return nil
}

func writeJSON(dir, name string, v any) (string, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	f := filepath.Join(dir, name)
	return f, os.WriteFile(f, data, 0o600)
}

// kill ends etcd and kube-apiserver at once: a control plane thrown away
// need not shut down cleanly (kube-env.sh stop waits ~4 s for it). Only the
// processes the pid files name whose command line names this control plane's
// folder are killed (a pid file outlives its process, and pids are reused).
func (e *Env) kill() error {
	for _, name := range []string{"kube-apiserver", "etcd"} {
		data, err := os.ReadFile(filepath.Join(e.Dir, name+".pid"))
		if errors.Is(err, fs.ErrNotExist) {
			continue // stopped (Stop removes the pid files)
		}
		if err != nil {
			return err
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil {
			return fmt.Errorf("%s's pid file: %w", name, err)
		}
		if !e.runs(pid) {
			continue
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("killing %s (%d): %w", name, pid, err)
		}
		for deadline := time.Now().Add(10 * time.Second); e.runs(pid); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				return fmt.Errorf("%s (%d) still runs 10s after SIGKILL", name, pid)
			}
		}
	}
	return nil
}

// runs reports whether pid is a live process of this control plane (a zombie
// is not: it holds no port and writes no file).
func (e *Env) runs(pid int) bool {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || !strings.Contains(string(cmdline), e.Dir+"/") {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, after, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(after, "Z")
}
