package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

// The floor: the least a program can hold to watch what routewarden watches.
// Typed informers for Nodes, Services, EndpointSlices and cilium-config,
// dynamic ones for Cilium's CRDs (no typed client in our dependencies), each
// with a transform dropping what no rule reads, and nothing else: no copy, no
// index, no translation. `bench floor -kubeconfig K` prints "synced <seconds>"
// once every informer has listed, then runs until SIGTERM.

var floorCiliumGVRs = []schema.GroupVersionResource{
	{Group: "cilium.io", Version: "v2", Resource: "ciliumnodes"},
	{Group: "cilium.io", Version: "v2", Resource: "ciliumloadbalancerippools"},
	{Group: "cilium.io", Version: "v2alpha1", Resource: "ciliumpodippools"},
	{Group: "cilium.io", Version: "v2", Resource: "ciliumbgpclusterconfigs"},
	{Group: "cilium.io", Version: "v2", Resource: "ciliumbgppeerconfigs"},
	{Group: "cilium.io", Version: "v2", Resource: "ciliumbgpadvertisements"},
	{Group: "cilium.io", Version: "v2", Resource: "ciliumbgpnodeconfigoverrides"},
}

func runFloor(args []string) error {
	fs := flag.NewFlagSet("floor", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "the cluster's kubeconfig")
	if err := fs.Parse(args); err != nil {
		return err
	}
	start := time.Now()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		return err
	}
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	typed := informers.NewSharedInformerFactoryWithOptions(kc, 0, informers.WithTransform(floorTypedTransform))
	cfgMaps := informers.NewSharedInformerFactoryWithOptions(kc, 0, informers.WithNamespace("kube-system"),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = "metadata.name=cilium-config" }))
	dynf := dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)
	synced := []cache.InformerSynced{
		typed.Core().V1().Nodes().Informer().HasSynced,
		typed.Core().V1().Services().Informer().HasSynced,
		typed.Discovery().V1().EndpointSlices().Informer().HasSynced,
		cfgMaps.Core().V1().ConfigMaps().Informer().HasSynced,
	}
	for _, gvr := range floorCiliumGVRs {
		inf := dynf.ForResource(gvr).Informer()
		_ = inf.SetTransform(floorDynamicTransform)
		synced = append(synced, inf.HasSynced)
	}
	typed.Start(ctx.Done())
	cfgMaps.Start(ctx.Done())
	dynf.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		return fmt.Errorf("informers did not sync")
	}
	fmt.Printf("synced %.3f\n", time.Since(start).Seconds())
	<-ctx.Done()
	typed.Shutdown()
	cfgMaps.Shutdown()
	dynf.Shutdown()
	return nil
}

// floorTypedTransform drops from the typed objects what no rule reads.
func floorTypedTransform(obj any) (any, error) {
	if m, ok := obj.(metav1.Object); ok {
		m.SetManagedFields(nil)
		m.SetAnnotations(nil)
		m.SetOwnerReferences(nil)
	}
	switch o := obj.(type) {
	case *corev1.Node:
		o.Status.Images, o.Status.NodeInfo = nil, corev1.NodeSystemInfo{}
		o.Status.Capacity, o.Status.Allocatable = nil, nil
		o.Status.VolumesAttached, o.Status.VolumesInUse = nil, nil
		o.Spec.Taints, o.Spec.ProviderID = nil, ""
	case *corev1.Service:
		o.Spec.Ports = nil
	case *discoveryv1.EndpointSlice:
		o.Ports = nil
		for i := range o.Endpoints {
			o.Endpoints[i].TargetRef, o.Endpoints[i].Hints, o.Endpoints[i].Zone = nil, nil, nil
		}
	}
	return obj, nil
}

// floorDynamicTransform drops managed fields, annotations and CiliumNodes' status.
func floorDynamicTransform(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil
	}
	for _, p := range [][]string{{"metadata", "managedFields"}, {"metadata", "annotations"}, {"status"},
		{"spec", "ipam", "pool"}, {"spec", "health"}, {"spec", "encryption"}} {
		unstructured.RemoveNestedField(u.Object, p...)
	}
	return u, nil
}
