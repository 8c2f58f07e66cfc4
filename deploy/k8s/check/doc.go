// Package check holds the tests that keep deploy/ honest: every manifest of
// the kustomizations deploy/k8s and deploy/k8s/monitoring decodes strictly
// into its typed Kubernetes or Prometheus-operator object (a misspelt field
// fails instead of being dropped by the API server); the images, ports,
// health probes, token and security settings agree with
// deploy/docker-compose.yml, the Dockerfile and each other; the
// PrometheusRule holds the groups of deploy/monitoring/nqueens-rules.yml;
// and the Grafana dashboard (deploy/monitoring/nqueens-dashboard.json) is
// well formed and queries only metrics the coordinator exports.
//
// DecodeStream does the same to a multi-document stream, such as what
// `kubectl kustomize` renders; the command k8sdecode (cmd/k8sdecode) runs it
// on a file or stdin, as CI does:
//
//	kubectl kustomize deploy/k8s | (cd deploy/k8s/check && go run ./cmd/k8sdecode)
//
// The command promcheck (cmd/promcheck) runs every query of the dashboard,
// or reads the health of every alert rule, against a real Prometheus: the
// compose test's, which scrapes a real run.
//
// The coordinator exports nqueens_job_info{n,kind,depth,engine} and
// workers started with --http serve their own /metrics
// (cmd/nqueens-worker/metrics.go); TestMonitoringUsesExportedMetrics reads the
// names from every file of metricsSources. The dashboard's Job panel
// shows nqueens_job_info; panels and alerts on the workers' metrics are
// still to come, and the compose test's Prometheus must then scrape the
// workers too for their panels to have data.
//
// It is its own module so that k8s.io/api, the operator's types and their
// dependencies stay out of the application's go.mod. Run its tests with
//
//	(cd deploy/k8s/check && go test ./...)
package check
