// Package promreg makes the Prometheus registry every nqueens process
// starts its /metrics from, so the coordinator's (package status) and the
// worker's (cmd/nqueens-worker) carry the same build and runtime series without
// the worker importing the coordinator.
package promreg

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/nqueens/nqueens/internal/version"
)

// New returns a registry of this process's own (not the global one, which
// any imported library may fill): the Go runtime and process collectors,
// and nqueens_build_info.
func New() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	v := version.Get()
	build := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "nqueens_build_info",
		Help: "The build of this binary: always 1, with its version, revision and solver version as labels.",
		ConstLabels: prometheus.Labels{
			"version": v.Module, "revision": v.Short(), "solver": strconv.Itoa(v.Solver), "goversion": v.Go,
		},
	})
	build.Set(1)
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), build)
	return reg
}
