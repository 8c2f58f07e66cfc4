package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/nqueens/nqueens/internal/promreg"
	"github.com/nqueens/nqueens/worker"
)

// The metrics server's limits: it answers Prometheus and probes only, so
// every request is small and quick.
const (
	metricsReadHeader = 5 * time.Second
	metricsWrite      = 30 * time.Second
	metricsIdle       = 2 * time.Minute
	metricsShutdown   = 2 * time.Second
)

// statsCollector turns a worker's Stats into metrics at scrape time. Its
// names differ from the coordinator's nqueens_worker_*_total{worker}
// (what the coordinator committed of each worker), so both can sit in one
// Prometheus.
type statsCollector struct {
	stats                                      *worker.Stats
	slots                                      int
	tasks, nodes, busy, speed, running, joined *prometheus.Desc
	slotsDesc, joins                           *prometheus.Desc
}

func newStatsCollector(stats *worker.Stats, slots int) *statsCollector {
	d := func(name, help string) *prometheus.Desc { return prometheus.NewDesc(name, help, nil, nil) }
	return &statsCollector{
		stats: stats, slots: slots,
		tasks:     d("nqueens_worker_sent_tasks_total", "Tasks this worker computed and sent (each task of a run counts)."),
		nodes:     d("nqueens_worker_sent_nodes_total", "Search nodes of the tasks this worker sent."),
		busy:      d("nqueens_worker_busy_slot_seconds_total", "Slot time spent computing the tasks sent (two busy slots add two seconds a second)."),
		speed:     d("nqueens_worker_nodes_per_second", "The speed of one slot: nodes sent per busy slot second."),
		running:   d("nqueens_worker_running_tasks", "Tasks computing now."),
		slotsDesc: d("nqueens_worker_slots", "Tasks this worker runs at once (--slots)."),
		joined:    d("nqueens_worker_joined", "1 while a Work session with the coordinator is open, else 0."),
		joins:     d("nqueens_worker_joins_total", "Successful joins: 1, plus a rejoin after each broken stream or each new job."),
	}
}

// Describe implements prometheus.Collector.
func (c *statsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.tasks, c.nodes, c.busy, c.speed, c.running, c.slotsDesc, c.joined, c.joins} {
		ch <- d
	}
}

// Collect implements prometheus.Collector from one Snapshot.
func (c *statsCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.stats.Snapshot()
	joined := 0.0
	if s.Joined {
		joined = 1
	}
	for d, v := range map[*prometheus.Desc]float64{c.tasks: float64(s.Tasks), c.nodes: float64(s.Nodes),
		c.busy: s.Busy.Seconds(), c.joins: float64(s.Joins)} {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v)
	}
	for d, v := range map[*prometheus.Desc]float64{c.speed: s.NodesPerSecond(), c.running: float64(s.Running),
		c.slotsDesc: float64(c.slots), c.joined: joined} {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v)
	}
}

// serveMetrics serves /metrics (the worker's own figures, build info, Go
// and process metrics) and /healthz on addr until ctx ends. It returns the
// bound address and a function that waits for the server's end.
func serveMetrics(ctx context.Context, addr string, stats *worker.Stats, slots int) (string, func(), error) {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("--http %s: %w", addr, err)
	}
	reg := promreg.New()
	reg.MustRegister(newStatsCollector(stats, slots))
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("ok\n"))
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: metricsReadHeader, WriteTimeout: metricsWrite, IdleTimeout: metricsIdle}
	done := make(chan struct{})
	go func() {
		defer close(done)
		go srv.Serve(lis)
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), metricsShutdown)
		defer cancel()
		if srv.Shutdown(sctx) != nil {
			srv.Close()
		}
	}()
	return lis.Addr().String(), func() { <-done }, nil
}
