package kube

import (
	"strings"
	"testing"

	"github.com/rs/zerolog"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	fakediscovery "k8s.io/client-go/discovery/fake"
	k8stesting "k8s.io/client-go/testing"
)

// failingDiscovery fails discovery of one group version with err.
type failingDiscovery struct {
	discovery.DiscoveryInterface
	groupVersion string
	err          error
}

func (f failingDiscovery) ServerResourcesForGroupVersion(gv string) (*metav1.APIResourceList, error) {
	if gv == f.groupVersion && f.err != nil {
		return nil, f.err
	}
	return f.DiscoveryInterface.ServerResourcesForGroupVersion(gv)
}

// TestDiscoveryFailureIsNotAbsence: a CRD whose discovery fails (503, a
// timeout) is an API failure, never taken for a CRD that is not installed,
// which would leave it unwatched for the life of the process; a group
// version the API server does not serve (404) is absence.
func TestDiscoveryFailureIsNotAbsence(t *testing.T) {
	fake := &fakediscovery.FakeDiscovery{Fake: &k8stesting.Fake{}, FakedServerVersion: nil}
	fake.Resources = []*metav1.APIResourceList{{GroupVersion: "cilium.io/v2", APIResources: []metav1.APIResource{
		{Name: "ciliumnodes"}, {Name: "ciliumbgpadvertisements"}, {Name: "ciliumbgppeerconfigs"}}}}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"503", apierrors.NewServiceUnavailable("etcd is busy"), "asking the API server for cilium.io/v2alpha1"},
		{"404: not installed", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i := &Inventory{disc: failingDiscovery{fake, "cilium.io/v2alpha1", tc.err}, log: zerolog.Nop()}
			gvrs, err := i.resources()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("resources: %v, want the served ones", err)
			case tc.want == "":
				if len(gvrs) == 0 {
					t.Fatal("no resources")
				}
			case err == nil || !strings.Contains(err.Error(), tc.want):
				t.Fatalf("resources: %v (%v), want an error naming %q", err, gvrs, tc.want)
			}
		})
	}
}
