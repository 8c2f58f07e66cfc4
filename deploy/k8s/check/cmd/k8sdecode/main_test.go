package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  token: t\n"
	claim  = "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: c\nspec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: 1Gi\n"
)

// TestRun: the command decodes a stream from stdin or a file, and fails
// with one line naming the document for a bad field or kind.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "rendered.yaml")
	if err := os.WriteFile(file, []byte(secret+"---\n"+claim), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args  []string
		stdin string
		code  int
		want  string // the one line on stdout (code 0) or stderr
	}{
		{nil, secret + "---\n" + claim, 0, "k8sdecode: stdin: 2 objects decoded strictly (1 Secret, 1 PersistentVolumeClaim)"},
		{[]string{"-"}, "# a comment\n---\n" + claim, 0, "k8sdecode: stdin: 1 objects decoded strictly (1 PersistentVolumeClaim)"},
		{[]string{file}, "", 0, "k8sdecode: " + file + ": 2 objects decoded strictly (1 Secret, 1 PersistentVolumeClaim)"},
		{nil, secret + "---\n" + strings.Replace(claim, "accessModes", "accesModes", 1), 1, `k8sdecode: stdin: document 2: unknown field "spec.accesModes"`},
		{nil, "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n", 1, `k8sdecode: stdin: document 1: unexpected object "v1/Pod" (the check knows Job, Deployment, Service, Secret, ConfigMap, PersistentVolumeClaim, PodDisruptionBudget, NetworkPolicy, PriorityClass, ServiceMonitor, PodMonitor, PrometheusRule)`},
		{nil, "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {name: m}\nspec:\n  endpoints:\n    - port: http\n      intervall: 15s\n", 1, `k8sdecode: stdin: document 1: unknown field "spec.endpoints[0].intervall"`},
		{nil, "", 1, "k8sdecode: stdin: no objects in the stream"},
		{[]string{filepath.Join(dir, "none.yaml")}, "", 1, "k8sdecode: open " + filepath.Join(dir, "none.yaml") + ": no such file or directory"},
		{[]string{"a", "b"}, "", 2, "usage: k8sdecode [FILE|-]   (decodes a multi-document YAML stream strictly; stdin by default)"},
		{[]string{"-h"}, "", 2, "usage: k8sdecode [FILE|-]   (decodes a multi-document YAML stream strictly; stdin by default)"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, strings.NewReader(tc.stdin), &stdout, &stderr)
		out := stderr.String()
		if tc.code == 0 {
			out = stdout.String()
		}
		if code != tc.code || out != tc.want+"\n" {
			t.Errorf("k8sdecode %q: exit %d, output %q (stderr %q); want exit %d and %q", tc.args, code, out, stderr.String(), tc.code, tc.want)
		}
	}
}
