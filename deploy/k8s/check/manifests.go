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

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Kustomization is the part of a kustomization.yaml that the base uses.
// Decoding is strict, so a field added to the file must be added here too.
type Kustomization struct {
	APIVersion string        `json:"apiVersion"`
	Kind       string        `json:"kind"`
	Resources  []string      `json:"resources"`
	Images     []ImageChange `json:"images,omitempty"`
}

// ImageChange is one entry of a kustomization's images list.
type ImageChange struct {
	Name    string `json:"name"`
	NewName string `json:"newName,omitempty"`
	NewTag  string `json:"newTag,omitempty"`
	Digest  string `json:"digest,omitempty"`
}

// Objects are the typed objects of a kustomization, by kind.
type Objects struct {
	Jobs        []batchv1.Job
	Deployments []appsv1.Deployment
	Services    []corev1.Service
	Secrets     []corev1.Secret
	Claims      []corev1.PersistentVolumeClaim
}

// Count is the number of objects in o.
func (o Objects) Count() int {
	return len(o.Jobs) + len(o.Deployments) + len(o.Services) + len(o.Secrets) + len(o.Claims)
}

// Summary names how many objects of each kind o holds, e.g. "1 Job,
// 2 Services".
func (o Objects) Summary() string {
	var parts []string
	for _, k := range []struct {
		n    int
		kind string
	}{{len(o.Jobs), "Job"}, {len(o.Deployments), "Deployment"}, {len(o.Services), "Service"},
		{len(o.Secrets), "Secret"}, {len(o.Claims), "PersistentVolumeClaim"}} {
		if k.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", k.n, k.kind))
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
	strict := func(into any) error { return decodeStrict(doc, into) }
	switch gvk := tm.APIVersion + "/" + tm.Kind; gvk {
	case "batch/v1/Job":
		var v batchv1.Job
		if err := strict(&v); err != nil {
			return err
		}
		o.Jobs = append(o.Jobs, v)
	case "apps/v1/Deployment":
		var v appsv1.Deployment
		if err := strict(&v); err != nil {
			return err
		}
		o.Deployments = append(o.Deployments, v)
	case "v1/Service":
		var v corev1.Service
		if err := strict(&v); err != nil {
			return err
		}
		o.Services = append(o.Services, v)
	case "v1/Secret":
		var v corev1.Secret
		if err := strict(&v); err != nil {
			return err
		}
		o.Secrets = append(o.Secrets, v)
	case "v1/PersistentVolumeClaim":
		var v corev1.PersistentVolumeClaim
		if err := strict(&v); err != nil {
			return err
		}
		o.Claims = append(o.Claims, v)
	default:
		return fmt.Errorf("unexpected object %q (the check knows Job, Deployment, Service, Secret, PersistentVolumeClaim)", gvk)
	}
	return nil
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
