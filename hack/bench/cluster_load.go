package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// controlPlane is a real kube-apiserver and etcd (hack/kube-env.sh) holding
// the cluster-scale workload.
type controlPlane struct {
	repo, dir  string
	kubeconfig string
	cfg        *rest.Config
	kc         *kubernetes.Clientset
	dyn        *dynamic.DynamicClient
}

func startControlPlane(repo, dir string) (*controlPlane, error) {
	cp := &controlPlane{repo: repo, dir: dir, kubeconfig: filepath.Join(dir, "kubeconfig")}
	if err := cp.start(); err != nil {
		return nil, err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", cp.kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 5000, 10000
	cp.cfg = cfg
	if cp.kc, err = kubernetes.NewForConfig(cfg); err != nil {
		return nil, err
	}
	cp.dyn, err = dynamic.NewForConfig(cfg)
	return cp, err
}

// start starts (or, after stop, restarts on the same data) etcd and kube-apiserver.
func (cp *controlPlane) start() error {
	cmd := exec.Command(filepath.Join(cp.repo, "hack", "kube-env.sh"), "start", cp.dir)
	// Every Service is a LoadBalancer with externalTrafficPolicy Local, which
	// takes a health-check node port: more than the default range's 2,768.
	cmd.Env = append(os.Environ(), "KUBE_ENV_APISERVER_ARGS="+os.Getenv("KUBE_ENV_APISERVER_ARGS")+
		" --service-node-port-range=30000-59999")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("starting kube-apiserver and etcd: %v\n%s", err, out)
	}
	return nil
}

// stop stops them (the API outage); the data is kept.
func (cp *controlPlane) stop() error {
	out, err := exec.Command(filepath.Join(cp.repo, "hack", "kube-env.sh"), "stop", cp.dir).CombinedOutput()
	if err != nil {
		return fmt.Errorf("stopping kube-apiserver and etcd: %v\n%s", err, out)
	}
	return nil
}

// installCilium applies the newest Cilium release's CRDs that routewarden reads.
func (cp *controlPlane) installCilium(crdDir string) error {
	rel, err := newestCilium(cp.repo, crdDir)
	if err != nil {
		return err
	}
	args := []string{"--kubeconfig", cp.kubeconfig, "apply", "--server-side"}
	for _, sub := range []string{"v2", "v2alpha1"} {
		files, _ := filepath.Glob(filepath.Join(rel, sub, "*.yaml"))
		for _, f := range files {
			b := filepath.Base(f)
			if b == "ciliumnodes.yaml" || b == "ciliumpodippools.yaml" || b == "ciliumloadbalancerippools.yaml" ||
				strings.HasPrefix(b, "ciliumbgp") {
				args = append(args, "-f", f)
			}
		}
	}
	kubectl := os.Getenv("KUBECTL")
	for _, a := range [][]string{args, {"--kubeconfig", cp.kubeconfig, "wait", "--for=condition=Established",
		"--timeout=60s", "crd", "--all"}} {
		if out, err := exec.Command(kubectl, a...).CombinedOutput(); err != nil {
			return fmt.Errorf("installing Cilium's CRDs (%s): %v\n%s", rel, err, out)
		}
	}
	return nil
}

// newestCilium is the folder of the newest Cilium release in hack/tools/crds.txt.
func newestCilium(repo, crdDir string) (string, error) {
	f, err := os.Open(filepath.Join(repo, "hack", "tools", "crds.txt"))
	if err != nil {
		return "", err
	}
	defer f.Close()
	best, bestMinor := "", -1
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, _, _ := strings.Cut(sc.Text(), " ")
		v, ok := strings.CutPrefix(name, "cilium-v")
		if !ok {
			continue
		}
		parts := strings.Split(v, ".")
		if len(parts) < 2 {
			continue
		}
		if m, _ := strconv.Atoi(parts[1]); m > bestMinor {
			best, bestMinor = name, m
		}
	}
	if best == "" {
		return "", fmt.Errorf("no Cilium release in hack/tools/crds.txt")
	}
	return filepath.Join(crdDir, best), sc.Err()
}

var (
	gvrCiliumNodesBench = schema.GroupVersionResource{Group: "cilium.io", Version: "v2", Resource: "ciliumnodes"}
)

// load creates the workload concurrently (workers goroutines) and reports
// how long it took.
func (cp *controlPlane) load(ctx context.Context, nodes, services, workers int) (time.Duration, error) {
	start := time.Now()
	if _, err := cp.kc.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: benchNamespace}},
		metav1.CreateOptions{}); err != nil {
		return 0, fmt.Errorf("creating namespace %s: %w", benchNamespace, err)
	}
	for _, u := range benchCiliumObjects() {
		gv, _ := schema.ParseGroupVersion(u.GetAPIVersion())
		res := strings.ToLower(u.GetKind()) + "s"
		ri := cp.dyn.Resource(gv.WithResource(res))
		var err error
		if ns := u.GetNamespace(); ns != "" {
			_, err = ri.Namespace(ns).Create(ctx, u, metav1.CreateOptions{})
		} else {
			_, err = ri.Create(ctx, u, metav1.CreateOptions{})
		}
		if err != nil {
			return 0, fmt.Errorf("creating %s %s: %w", u.GetKind(), u.GetName(), err)
		}
	}
	err := parallel(ctx, nodes, workers, func(i int) error { return retried(ctx, func() error { return cp.createNode(ctx, i) }) })
	if err != nil {
		return 0, err
	}
	err = parallel(ctx, services, workers, func(j int) error {
		return retried(ctx, func() error { return cp.createService(ctx, j, nodes, true) })
	})
	return time.Since(start), err
}

// parallel runs f(0..n-1) on workers goroutines; the first error stops it.
func parallel(ctx context.Context, n, workers int, f func(int) error) error {
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := f(i); err != nil {
					once.Do(func() { firstErr = err; cancel() })
					return
				}
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// retried runs f again, up to 5 times, after an error an overloaded API
// server gives (a timeout, 429, 5xx); f must be safe to run again.
func retried(ctx context.Context, f func() error) error {
	for attempt := 0; ; attempt++ {
		err := f()
		if err == nil || attempt == 4 || ctx.Err() != nil || !(apierrors.IsTimeout(err) ||
			apierrors.IsServerTimeout(err) || apierrors.IsTooManyRequests(err) || apierrors.IsInternalError(err) ||
			apierrors.IsServiceUnavailable(err)) {
			return err
		}
		time.Sleep(time.Second << attempt)
	}
}
