// Package check holds the tests that keep deploy/k8s honest: every manifest
// the kustomization lists decodes strictly into its typed Kubernetes object
// (a misspelt field fails instead of being dropped by the API server), and
// the images, ports, health probes, token and security settings agree with
// deploy/docker-compose.yml and with each other.
//
// DecodeStream does the same to a multi-document stream, such as what
// `kubectl kustomize` renders; the command k8sdecode (cmd/k8sdecode) runs it
// on a file or stdin, as CI does:
//
//	kubectl kustomize deploy/k8s | (cd deploy/k8s/check && go run ./cmd/k8sdecode)
//
// It is its own module so that k8s.io/api and its dependencies stay out of
// the application's go.mod. Run its tests with
//
//	(cd deploy/k8s/check && go test ./...)
package check
