package check

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Kustomization is the part of a kustomization.yaml that the bases use.
// Decoding is strict, so a field added to the file must be added here too.
type Kustomization struct {
	APIVersion         string        `json:"apiVersion"`
	Kind               string        `json:"kind"`
	Resources          []string      `json:"resources"`
	ConfigMapGenerator []Generator   `json:"configMapGenerator,omitempty"`
	Replicas           []Replicas    `json:"replicas,omitempty"`
	Replacements       []Replacement `json:"replacements,omitempty"`
	Images             []ImageChange `json:"images,omitempty"`
}

// ImageChange is one entry of a kustomization's images list.
type ImageChange struct {
	Name    string `json:"name"`
	NewName string `json:"newName,omitempty"`
	NewTag  string `json:"newTag,omitempty"`
	Digest  string `json:"digest,omitempty"`
}

// Generator is one entry of a kustomization's configMapGenerator.
type Generator struct {
	Name     string   `json:"name"`
	Literals []string `json:"literals,omitempty"`
}

// Literal returns the value of the generator's literal key=value.
func (g Generator) Literal(key string) (string, bool) {
	for _, l := range g.Literals {
		if k, v, ok := strings.Cut(l, "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// Replicas is one entry of a kustomization's replicas list.
type Replicas struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// Replacement copies a field of one object into fields of others.
type Replacement struct {
	Source struct {
		Kind      string `json:"kind"`
		Name      string `json:"name"`
		FieldPath string `json:"fieldPath"`
	} `json:"source"`
	Targets []struct {
		Select struct {
			Kind string `json:"kind"`
			Name string `json:"name"`
		} `json:"select"`
		FieldPaths []string `json:"fieldPaths"`
		Options    *struct {
			Delimiter string `json:"delimiter,omitempty"`
			Index     int    `json:"index,omitempty"`
		} `json:"options,omitempty"`
	} `json:"targets"`
}

// Objects are the typed objects of a kustomization, by kind.
type Objects struct {
	Jobs            []batchv1.Job
	Deployments     []appsv1.Deployment
	Services        []corev1.Service
	Secrets         []corev1.Secret
	ConfigMaps      []corev1.ConfigMap
	Claims          []corev1.PersistentVolumeClaim
	Budgets         []policyv1.PodDisruptionBudget
	Policies        []networkingv1.NetworkPolicy
	Priorities      []schedulingv1.PriorityClass
	ServiceMonitors []monitoringv1.ServiceMonitor
	PodMonitors     []monitoringv1.PodMonitor
	Rules           []monitoringv1.PrometheusRule
}

// kind is one kind of object the check knows: its apiVersion/kind, and
// how to decode a document into Objects and count them there.
type kind struct {
	gvk, name string
	add       func(o *Objects, doc []byte) error
	count     func(o *Objects) int
}

// kindOf makes the kind whose objects Objects keeps in the list that list
// returns.
func kindOf[T any](gvk, name string, list func(*Objects) *[]T) kind {
	return kind{gvk, name,
		func(o *Objects, doc []byte) error {
			var v T
			if err := decodeStrict(doc, &v); err != nil {
				return err
			}
			*list(o) = append(*list(o), v)
			return nil
		},
		func(o *Objects) int { return len(*list(o)) }}
}

// kinds are every kind the check lets through, in the order Summary names
// them.
var kinds = []kind{
	kindOf("batch/v1/Job", "Job", func(o *Objects) *[]batchv1.Job { return &o.Jobs }),
	kindOf("apps/v1/Deployment", "Deployment", func(o *Objects) *[]appsv1.Deployment { return &o.Deployments }),
	kindOf("v1/Service", "Service", func(o *Objects) *[]corev1.Service { return &o.Services }),
	kindOf("v1/Secret", "Secret", func(o *Objects) *[]corev1.Secret { return &o.Secrets }),
	kindOf("v1/ConfigMap", "ConfigMap", func(o *Objects) *[]corev1.ConfigMap { return &o.ConfigMaps }),
	kindOf("v1/PersistentVolumeClaim", "PersistentVolumeClaim", func(o *Objects) *[]corev1.PersistentVolumeClaim { return &o.Claims }),
	kindOf("policy/v1/PodDisruptionBudget", "PodDisruptionBudget", func(o *Objects) *[]policyv1.PodDisruptionBudget { return &o.Budgets }),
	kindOf("networking.k8s.io/v1/NetworkPolicy", "NetworkPolicy", func(o *Objects) *[]networkingv1.NetworkPolicy { return &o.Policies }),
	kindOf("scheduling.k8s.io/v1/PriorityClass", "PriorityClass", func(o *Objects) *[]schedulingv1.PriorityClass { return &o.Priorities }),
	kindOf("monitoring.coreos.com/v1/ServiceMonitor", "ServiceMonitor", func(o *Objects) *[]monitoringv1.ServiceMonitor { return &o.ServiceMonitors }),
	kindOf("monitoring.coreos.com/v1/PodMonitor", "PodMonitor", func(o *Objects) *[]monitoringv1.PodMonitor { return &o.PodMonitors }),
	kindOf("monitoring.coreos.com/v1/PrometheusRule", "PrometheusRule", func(o *Objects) *[]monitoringv1.PrometheusRule { return &o.Rules }),
}

// Count is the number of objects in o.
func (o Objects) Count() int {
	n := 0
	for _, k := range kinds {
		n += k.count(&o)
	}
	return n
}

// Summary names how many objects of each kind o holds, e.g. "1 Job,
// 2 Service".
func (o Objects) Summary() string {
	var parts []string
	for _, k := range kinds {
		if n := k.count(&o); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k.name))
		}
	}
	return strings.Join(parts, ", ")
}

// DecodeStream decodes every document of a multi-document YAML stream
// (what `kubectl kustomize` prints) strictly, as LoadObjects does the
// files. A stream with no object at all is an error too: it is never what
// a render meant to produce.
func DecodeStream(r io.Reader) (Objects, error) {
	var objs Objects
	data, err := io.ReadAll(r)
	if err != nil {
		return objs, err
	}
	docs := splitDocuments(data)
	if len(docs) == 0 {
		return objs, errors.New("no objects in the stream")
	}
	for i, doc := range docs {
		if err := objs.add(doc); err != nil {
			return objs, fmt.Errorf("document %d: %w", i+1, err)
		}
	}
	return objs, nil
}

// LoadKustomization decodes dir/kustomization.yaml strictly.
func LoadKustomization(dir string) (Kustomization, error) {
	var k Kustomization
	data, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		return k, err
	}
	if err := decodeStrict(data, &k); err != nil {
		return k, fmt.Errorf("kustomization.yaml: %w", err)
	}
	if k.APIVersion != "kustomize.config.k8s.io/v1beta1" || k.Kind != "Kustomization" {
		return k, fmt.Errorf("kustomization.yaml: apiVersion/kind = %s/%s, want kustomize.config.k8s.io/v1beta1/Kustomization", k.APIVersion, k.Kind)
	}
	return k, nil
}

// LoadObjects decodes every resource of k (paths relative to dir) strictly.
func LoadObjects(dir string, k Kustomization) (Objects, error) {
	var objs Objects
	for _, res := range k.Resources {
		data, err := os.ReadFile(filepath.Join(dir, res))
		if err != nil {
			return objs, err
		}
		for i, doc := range splitDocuments(data) {
			if err := objs.add(doc); err != nil {
				return objs, fmt.Errorf("%s (document %d): %w", res, i+1, err)
			}
		}
	}
	return objs, nil
}

var docSeparator = regexp.MustCompile(`(?m)^---[ \t]*$`)

// splitDocuments splits a YAML stream into its non-empty documents.
func splitDocuments(data []byte) [][]byte {
	var docs [][]byte
	for _, d := range docSeparator.Split(string(data), -1) {
		if strings.TrimSpace(stripComments(d)) != "" {
			docs = append(docs, []byte(d))
		}
	}
	return docs
}

func stripComments(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// add decodes one document strictly into the typed object its
// apiVersion and kind name. Unknown kinds are an error: the check must know
// every object it lets through.
func (o *Objects) add(doc []byte) error {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return err
	}
	gvk := tm.APIVersion + "/" + tm.Kind
	names := make([]string, len(kinds))
	for i, k := range kinds {
		if k.gvk == gvk {
			return k.add(o, doc)
		}
		names[i] = k.name
	}
	return fmt.Errorf("unexpected object %q (the check knows %s)", gvk, strings.Join(names, ", "))
}

// decodeStrict decodes one YAML document into v the way the API server
// does in strict mode: field names are case-sensitive (encoding/json, and so
// yaml.UnmarshalStrict, would take "readOnlyRootFileSystem" for
// readOnlyRootFilesystem), and unknown or duplicate fields are errors.
func decodeStrict(doc []byte, v any) error {
	j, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return err
	}
	strictErrs, err := kjson.UnmarshalStrict(j, v)
	if err != nil {
		return err
	}
	return errors.Join(strictErrs...)
}

// Compose is the part of a docker-compose.yml file the checks compare with
// the manifests. Decoding is lenient: Compose has many fields we do not use.
type Compose struct {
	Services map[string]ComposeService `json:"services"`
}

// ComposeService is one service of a Compose file.
type ComposeService struct {
	Image       string            `json:"image"`
	Command     any               `json:"command"` // a string or a list
	Environment map[string]string `json:"environment"`
	User        string            `json:"user"`
	Restart     string            `json:"restart"`
	Volumes     []string          `json:"volumes"`
	ReadOnly    bool              `json:"read_only"`
	CapDrop     []string          `json:"cap_drop"`
	Expose      []string          `json:"expose"`
	Ports       []string          `json:"ports"`
	Healthcheck *struct {
		Test []string `json:"test"`
	} `json:"healthcheck"`
	Build *struct {
		Context    string            `json:"context"`
		Dockerfile string            `json:"dockerfile"`
		Args       map[string]string `json:"args"`
	} `json:"build"`
	DependsOn map[string]struct {
		Condition string `json:"condition"`
	} `json:"depends_on"`
}

// LoadCompose reads a Compose file, with every ${VAR:-default} replaced by
// its default (and ${VAR} by ""), so the result does not depend on the
// environment the test runs in.
func LoadCompose(path string) (Compose, error) {
	var c Compose
	data, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	if err := yaml.Unmarshal(data, &c); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	for name, s := range c.Services {
		s.Image = Interpolate(s.Image)
		s.User = Interpolate(s.User)
		for i, p := range s.Ports {
			s.Ports[i] = Interpolate(p)
		}
		for k, v := range s.Environment {
			s.Environment[k] = Interpolate(v)
		}
		if s.Build != nil {
			for k, v := range s.Build.Args {
				s.Build.Args[k] = Interpolate(v)
			}
		}
		c.Services[name] = s
	}
	return c, nil
}

var composeVar = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:?-([^}]*))?\}`)

// Interpolate replaces Compose variables by their defaults.
func Interpolate(s string) string {
	return composeVar.ReplaceAllString(s, "$3")
}

// Args returns the service's command as an argument list, defaults applied.
func (s ComposeService) Args() ([]string, error) {
	switch c := s.Command.(type) {
	case string:
		return strings.Fields(Interpolate(c)), nil
	case []any:
		var args []string
		for _, a := range c {
			args = append(args, Interpolate(fmt.Sprint(a)))
		}
		return args, nil
	default:
		return nil, fmt.Errorf("command %v: want a string or a list", s.Command)
	}
}

// FlagValue returns the value of --name in args, spelt "--name value",
// "--name=value", "-name value" or "-name=value".
func FlagValue(args []string, name string) (string, bool) {
	for i, a := range args {
		trimmed := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if trimmed == a {
			continue // not a flag
		}
		if trimmed == name && i+1 < len(args) {
			return args[i+1], true
		}
		if v, ok := strings.CutPrefix(trimmed, name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// Port returns the port of a HOST:PORT flag value.
func Port(hostport string) (string, error) {
	_, port, err := net.SplitHostPort(hostport)
	return port, err
}
