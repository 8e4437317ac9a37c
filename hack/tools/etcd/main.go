// Command etcd is the upstream etcd server (go.etcd.io/etcd/server/v3/etcdmain),
// built from the Go module proxy for routewarden's test control plane.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
