package check

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

const (
	k8sDir        = ".."
	monitoringDir = "../monitoring"
	composePath   = "../../docker-compose.yml"
	tokenEnv      = "NQUEENS_TOKEN"
)

// pod is a pod template with the name of the object that holds it.
type pod struct {
	owner string
	spec  corev1.PodSpec
	label map[string]string
}

// setup loads the kustomization, its objects and the Compose file.
func setup(t *testing.T) (Kustomization, Objects, Compose) {
	t.Helper()
	k, objs := load(t, k8sDir)
	c, err := LoadCompose(composePath)
	if err != nil {
		t.Fatal(err)
	}
	return k, objs, c
}

// load decodes the kustomization in dir and its objects.
func load(t *testing.T, dir string) (Kustomization, Objects) {
	t.Helper()
	k, err := LoadKustomization(dir)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := LoadObjects(dir, k)
	if err != nil {
		t.Fatal(err)
	}
	return k, objs
}

func pods(o Objects) []pod {
	var ps []pod
	for _, j := range o.Jobs {
		ps = append(ps, pod{"Job/" + j.Name, j.Spec.Template.Spec, j.Spec.Template.Labels})
	}
	for _, d := range o.Deployments {
		ps = append(ps, pod{"Deployment/" + d.Name, d.Spec.Template.Spec, d.Spec.Template.Labels})
	}
	return ps
}

// TestKustomizationListsEveryManifest: a manifest left out of the
// kustomization would silently not be deployed, and one listed twice or
// missing would break `kubectl apply -k`.
func TestKustomizationListsEveryManifest(t *testing.T) {
	for _, dir := range []string{k8sDir, monitoringDir} {
		k, err := LoadKustomization(dir)
		if err != nil {
			t.Fatal(err)
		}
		files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var onDisk []string
		for _, f := range files {
			if base := filepath.Base(f); base != "kustomization.yaml" {
				onDisk = append(onDisk, base)
			}
		}
		listed := slices.Clone(k.Resources)
		slices.Sort(listed)
		slices.Sort(onDisk)
		if !slices.Equal(listed, onDisk) {
			t.Errorf("%s: kustomization resources = %v, want the manifests beside it: %v", dir, listed, onDisk)
		}
	}
}

func TestManifestsDecodeStrictly(t *testing.T) {
	_, objs, _ := setup(t)
	if got, want := objs.Summary(), "1 Job, 1 Deployment, 1 Service, 1 PersistentVolumeClaim, 1 PodDisruptionBudget, 1 NetworkPolicy, 1 PriorityClass"; got != want {
		t.Errorf("deploy/k8s holds %s; want %s", got, want)
	}
	mon := loadMonitoring(t)
	if got, want := mon.Summary(), "1 ServiceMonitor, 1 PodMonitor, 1 PrometheusRule"; got != want {
		t.Errorf("deploy/k8s/monitoring holds %s; want %s", got, want)
	}
}

// loadMonitoring decodes deploy/k8s/monitoring's objects.
func loadMonitoring(t *testing.T) Objects {
	t.Helper()
	_, objs := load(t, monitoringDir)
	return objs
}

// TestStrictDecodingCatchesTypos proves the check itself: a misspelt or
// misplaced field must fail, not vanish.
func TestStrictDecodingCatchesTypos(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(k8sDir, "worker-deployment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ from, to string }{
		{"imagePullPolicy:", "imagePullPolcy:"},
		{"readOnlyRootFilesystem:", "readOnlyRootFileSystem:"},
		{"selector:", "selectr:"},
		{"terminationGracePeriodSeconds: 30", "terminationGracePeriodSeconds: 30\n      terminationGracePeriodSeconds: 5"}, // duplicate field
	} {
		if !strings.Contains(string(data), tc.from) {
			t.Fatalf("worker-deployment.yaml has no %q to misspell", tc.from)
		}
		bad := strings.Replace(string(data), tc.from, tc.to, 1)
		var o Objects
		if err := o.add([]byte(bad)); err == nil {
			t.Errorf("decoding worker-deployment.yaml with %q misspelt as %q succeeded, want an error", tc.from, tc.to)
		}
	}
	var o Objects
	if err := o.add([]byte("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n")); err == nil {
		t.Error("decoding an unexpected kind succeeded, want an error")
	}
}

// TestImagesMatchCompose: Kubernetes runs exactly the image Compose runs,
// and never tries to pull it from a registry that has no such image.
func TestImagesMatchCompose(t *testing.T) {
	k, objs, c := setup(t)
	want := c.Services["coordinator"].Image
	if want == "" {
		t.Fatal("compose coordinator has no image")
	}
	for name, s := range c.Services {
		if s.Image != want {
			t.Errorf("compose %s image = %q, want %q like the coordinator", name, s.Image, want)
		}
	}
	repo, _, _ := strings.Cut(want, ":")
	for _, img := range k.Images {
		if img.Name != repo {
			t.Errorf("kustomization images name = %q, want %q", img.Name, repo)
		}
		if img.NewName != "" || (img.NewTag != "" && repo+":"+img.NewTag != want) {
			t.Errorf("kustomization images %+v turns %q into another image", img, want)
		}
	}
	for _, p := range pods(objs) {
		for _, ctr := range p.spec.Containers {
			if ctr.Image != want {
				t.Errorf("%s container %s image = %q, want %q (compose)", p.owner, ctr.Name, ctr.Image, want)
			}
			if ctr.ImagePullPolicy != corev1.PullIfNotPresent && ctr.ImagePullPolicy != corev1.PullNever {
				t.Errorf("%s container %s imagePullPolicy = %q, want IfNotPresent or Never", p.owner, ctr.Name, ctr.ImagePullPolicy)
			}
		}
	}
}

// container returns the only container of the one object of a kind.
func onlyContainer(t *testing.T, p pod) corev1.Container {
	t.Helper()
	if len(p.spec.Containers) != 1 {
		t.Fatalf("%s has %d containers, want 1", p.owner, len(p.spec.Containers))
	}
	return p.spec.Containers[0]
}

func args(c corev1.Container) []string { return append(slices.Clone(c.Command), c.Args...) }

// flagPort returns the port of the HOST:PORT flag --name in args.
func flagPort(t *testing.T, where string, args []string, name string) string {
	t.Helper()
	v, ok := FlagValue(args, name)
	if !ok {
		t.Fatalf("%s: no --%s in %q", where, name, args)
	}
	port, err := Port(v)
	if err != nil {
		t.Fatalf("%s: --%s %q: %v", where, name, v, err)
	}
	return port
}

// containerPort finds the named container port.
func containerPort(t *testing.T, where string, c corev1.Container, name string) string {
	t.Helper()
	for _, p := range c.Ports {
		if p.Name == name {
			return strconv.Itoa(int(p.ContainerPort))
		}
	}
	t.Fatalf("%s: no container port named %q", where, name)
	return ""
}

// TestPortsAndProbesMatchCompose: the coordinator's gRPC port, the workers'
// health port, the Service and every probe agree, here and in Compose.
func TestPortsAndProbesMatchCompose(t *testing.T) {
	_, objs, c := setup(t)
	if len(objs.Jobs) != 1 || len(objs.Deployments) != 1 || len(objs.Services) != 1 {
		t.Fatal("want one Job, one Deployment and one Service")
	}

	// Compose: what the rest must match.
	cargs, err := c.Services["coordinator"].Args()
	if err != nil {
		t.Fatal(err)
	}
	wargs, err := c.Services["worker"].Args()
	if err != nil {
		t.Fatal(err)
	}
	grpcPort := flagPort(t, "compose coordinator", cargs, "listen")
	healthPort := flagPort(t, "compose worker", wargs, "health-listen")
	if got := flagPort(t, "compose worker", wargs, "join"); got != grpcPort {
		t.Errorf("compose worker --join port = %s, want the coordinator's --listen port %s", got, grpcPort)
	}
	if join, _ := FlagValue(wargs, "join"); !strings.HasPrefix(join, "coordinator:") {
		t.Errorf("compose worker --join = %q, want the coordinator service", join)
	}
	for name, port := range map[string]string{"coordinator": grpcPort, "worker": healthPort} {
		s := c.Services[name]
		if !slices.Contains(s.Expose, port) {
			t.Errorf("compose %s expose = %v, want %s", name, s.Expose, port)
		}
		if s.Healthcheck != nil {
			if got := flagPort(t, "compose "+name+" healthcheck", s.Healthcheck.Test, "addr"); got != port {
				t.Errorf("compose %s healthcheck port = %s, want %s", name, got, port)
			}
		}
	}
	if cond := c.Services["worker"].DependsOn["coordinator"].Condition; cond != "service_healthy" {
		t.Errorf("compose worker depends_on coordinator condition = %q, want service_healthy", cond)
	}

	// The coordinator Job.
	job := pods(Objects{Jobs: objs.Jobs})[0]
	coord := onlyContainer(t, job)
	if got := flagPort(t, job.owner, args(coord), "listen"); got != grpcPort {
		t.Errorf("%s --listen port = %s, want %s (compose)", job.owner, got, grpcPort)
	}
	if got := containerPort(t, job.owner, coord, "grpc"); got != grpcPort {
		t.Errorf("%s container port grpc = %s, want %s", job.owner, got, grpcPort)
	}
	checkProbes(t, job.owner, coord, grpcPort)

	// The Service in front of it.
	svc := objs.Services[0]
	sp := servicePort(t, svc, "grpc")
	if strconv.Itoa(int(sp.Port)) != grpcPort {
		t.Errorf("Service/%s port = %d, want %s", svc.Name, sp.Port, grpcPort)
	}
	if sp.TargetPort != intstr.FromString("grpc") && sp.TargetPort.String() != grpcPort {
		t.Errorf("Service/%s targetPort = %s, want grpc or %s", svc.Name, sp.TargetPort.String(), grpcPort)
	}
	for k, v := range svc.Spec.Selector {
		if job.label[k] != v {
			t.Errorf("Service/%s selector %s=%s does not match the %s pod labels %v", svc.Name, k, v, job.owner, job.label)
		}
	}
	if len(svc.Spec.Selector) == 0 {
		t.Errorf("Service/%s has no selector", svc.Name)
	}

	// The worker Deployment.
	dep := objs.Deployments[0]
	wp := pods(Objects{Deployments: objs.Deployments})[0]
	worker := onlyContainer(t, wp)
	wantJoin := svc.Name + ":" + grpcPort
	if join, _ := FlagValue(args(worker), "join"); join != wantJoin {
		t.Errorf("%s --join = %q, want %q (the Service)", wp.owner, join, wantJoin)
	}
	if got := flagPort(t, wp.owner, args(worker), "health-listen"); got != healthPort {
		t.Errorf("%s --health-listen port = %s, want %s (compose)", wp.owner, got, healthPort)
	}
	if got := containerPort(t, wp.owner, worker, "health"); got != healthPort {
		t.Errorf("%s container port health = %s, want %s", wp.owner, got, healthPort)
	}
	checkProbes(t, wp.owner, worker, healthPort)
	for k, v := range dep.Spec.Selector.MatchLabels {
		if wp.label[k] != v {
			t.Errorf("%s selector %s=%s does not match its pod labels", wp.owner, k, v)
		}
	}
	for k, v := range svc.Spec.Selector {
		if wp.label[k] != v {
			return // good: the Service does not select workers
		}
	}
	t.Errorf("Service/%s selector %v also selects the workers", svc.Name, svc.Spec.Selector)
}

// servicePort finds the Service's port called name.
func servicePort(t *testing.T, svc corev1.Service, name string) corev1.ServicePort {
	t.Helper()
	for _, p := range svc.Spec.Ports {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("Service/%s has no port named %q", svc.Name, name)
	return corev1.ServicePort{}
}

// TestStatusPortMatches: the coordinator's status server (--http) is on one
// port in Compose (exposed, and published on a fixed port of the host's
// loopback only), the Job (container port http) and the Service; no
// prometheus.io/scrape annotation invites a scraper that has no token.
func TestStatusPortMatches(t *testing.T) {
	_, objs, c := setup(t)
	cs := c.Services["coordinator"]
	cargs, err := cs.Args()
	if err != nil {
		t.Fatal(err)
	}
	httpPort := flagPort(t, "compose coordinator", cargs, "http")
	if !slices.Contains(cs.Expose, httpPort) {
		t.Errorf("compose coordinator expose = %v, want %s", cs.Expose, httpPort)
	}
	if len(cs.Ports) != 1 || !strings.HasPrefix(cs.Ports[0], "127.0.0.1:") || !strings.HasSuffix(cs.Ports[0], ":"+httpPort) {
		t.Errorf("compose coordinator ports = %v, want the status port %s published on 127.0.0.1 only", cs.Ports, httpPort)
	} else if parts := strings.Split(cs.Ports[0], ":"); len(parts) != 3 || parts[1] == "" {
		t.Errorf("compose coordinator ports = %v, want a fixed host port (HOST:PORT:%s): Docker picks a new one at every start otherwise", cs.Ports, httpPort)
	}
	for name, s := range c.Services {
		if name != "coordinator" && len(s.Ports) > 0 {
			t.Errorf("compose %s publishes %v, want nothing", name, s.Ports)
		}
	}
	job := pods(Objects{Jobs: objs.Jobs})[0]
	coord := onlyContainer(t, job)
	if got := flagPort(t, job.owner, args(coord), "http"); got != httpPort {
		t.Errorf("%s --http port = %s, want %s (compose)", job.owner, got, httpPort)
	}
	if got := containerPort(t, job.owner, coord, "http"); got != httpPort {
		t.Errorf("%s container port http = %s, want %s", job.owner, got, httpPort)
	}
	ann := objs.Jobs[0].Spec.Template.Annotations
	svc := objs.Services[0]
	for owner, a := range map[string]map[string]string{job.owner + " pod": ann, "Service/" + svc.Name: svc.Annotations} {
		if _, ok := a["prometheus.io/scrape"]; ok {
			t.Errorf("%s has a prometheus.io/scrape annotation: a scraper that finds it has no token and gets 401", owner)
		}
	}
	sp := servicePort(t, svc, "http")
	if strconv.Itoa(int(sp.Port)) != httpPort || (sp.TargetPort != intstr.FromString("http") && sp.TargetPort.String() != httpPort) {
		t.Errorf("Service/%s port http = %d -> %s, want %s -> http", svc.Name, sp.Port, sp.TargetPort.String(), httpPort)
	}
}

// checkProbes wants native gRPC liveness and readiness probes on port.
func checkProbes(t *testing.T, owner string, c corev1.Container, port string) {
	t.Helper()
	for kind, p := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe} {
		switch {
		case p == nil:
			t.Errorf("%s container %s has no %s probe", owner, c.Name, kind)
		case p.GRPC == nil:
			t.Errorf("%s container %s %s probe is not a gRPC probe", owner, c.Name, kind)
		case strconv.Itoa(int(p.GRPC.Port)) != port:
			t.Errorf("%s container %s %s probe port = %d, want %s", owner, c.Name, kind, p.GRPC.Port, port)
		}
	}
}

// TestSecurity: non-root, read-only root filesystem, no privilege
// escalation, every capability dropped, bounded resources; the same user and
// hardening in Compose.
func TestSecurity(t *testing.T) {
	_, objs, c := setup(t)
	for name, s := range c.Services {
		if s.User == "" || strings.HasPrefix(s.User, "0") || s.User == "root" {
			t.Errorf("compose %s user = %q, want a numeric non-root user", name, s.User)
		}
		if !s.ReadOnly {
			t.Errorf("compose %s read_only = false, want true", name)
		}
		if !slices.Contains(s.CapDrop, "ALL") {
			t.Errorf("compose %s cap_drop = %v, want ALL", name, s.CapDrop)
		}
	}
	uid, _, _ := strings.Cut(c.Services["coordinator"].User, ":")

	for _, p := range pods(objs) {
		if p.spec.AutomountServiceAccountToken == nil || *p.spec.AutomountServiceAccountToken {
			t.Errorf("%s automountServiceAccountToken is not false (nqueens never calls the API server)", p.owner)
		}
		if p.spec.HostNetwork || p.spec.HostPID || p.spec.HostIPC {
			t.Errorf("%s shares a host namespace", p.owner)
		}
		psc := p.spec.SecurityContext
		if psc == nil {
			psc = &corev1.PodSecurityContext{}
		}
		for _, ctr := range append(slices.Clone(p.spec.InitContainers), p.spec.Containers...) {
			where := p.owner + " container " + ctr.Name
			sc := ctr.SecurityContext
			if sc == nil {
				t.Errorf("%s has no securityContext", where)
				continue
			}
			nonRoot := sc.RunAsNonRoot
			if nonRoot == nil {
				nonRoot = psc.RunAsNonRoot
			}
			if nonRoot == nil || !*nonRoot {
				t.Errorf("%s runAsNonRoot is not true", where)
			}
			user := sc.RunAsUser
			if user == nil {
				user = psc.RunAsUser
			}
			if user == nil || *user == 0 {
				t.Errorf("%s runAsUser is not set to a non-root uid", where)
			} else if strconv.FormatInt(*user, 10) != uid {
				t.Errorf("%s runAsUser = %d, want %s like compose and the image", where, *user, uid)
			}
			if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
				t.Errorf("%s readOnlyRootFilesystem is not true", where)
			}
			if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
				t.Errorf("%s allowPrivilegeEscalation is not false", where)
			}
			if sc.Privileged != nil && *sc.Privileged {
				t.Errorf("%s is privileged", where)
			}
			if sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") || len(sc.Capabilities.Add) > 0 {
				t.Errorf("%s capabilities = %+v, want drop ALL and add none", where, sc.Capabilities)
			}
			for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
				req, okReq := ctr.Resources.Requests[res]
				lim, okLim := ctr.Resources.Limits[res]
				if !okReq || !okLim {
					t.Errorf("%s has no %s request and limit", where, res)
					continue
				}
				if req.Cmp(lim) > 0 {
					t.Errorf("%s %s request %s > limit %s", where, res, req.String(), lim.String())
				}
			}
		}
	}
}

// TestTokenFromSecret: the join token reaches every container from one
// Secret, never as a literal, and the ServiceMonitor scrapes with the same
// one; the kustomizations hold no Secret (a token kept in the repository
// would be deployed as it is), and deploy/README.md's one-liner makes that
// Secret with that key; Compose shares one token.
func TestTokenFromSecret(t *testing.T) {
	_, objs, c := setup(t)
	mon := loadMonitoring(t)
	if n := len(objs.Secrets) + len(mon.Secrets); n != 0 {
		t.Errorf("the kustomizations hold %d Secrets, want none: the token is made at deploy time", n)
	}
	var refs []corev1.SecretKeySelector
	for _, p := range pods(objs) {
		for _, ctr := range p.spec.Containers {
			where := p.owner + " container " + ctr.Name
			i := slices.IndexFunc(ctr.Env, func(e corev1.EnvVar) bool { return e.Name == tokenEnv })
			if i < 0 {
				t.Errorf("%s has no %s", where, tokenEnv)
				continue
			}
			e := ctr.Env[i]
			if e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
				t.Errorf("%s %s is not from a Secret", where, tokenEnv)
				continue
			}
			refs = append(refs, *e.ValueFrom.SecretKeyRef)
		}
	}
	for _, sm := range mon.ServiceMonitors {
		for _, ep := range sm.Spec.Endpoints {
			if a := ep.Authorization; a == nil || a.Credentials == nil || (a.Type != "" && !strings.EqualFold(a.Type, "Bearer")) {
				t.Errorf("ServiceMonitor/%s endpoint %s: authorization %+v, want Bearer credentials from the token Secret", sm.Name, ep.Port, a)
			} else {
				refs = append(refs, *a.Credentials)
			}
		}
	}
	if len(refs) == 0 {
		t.Fatal("nothing reads the token")
	}
	want := refs[0]
	for _, r := range refs {
		if r.Name != want.Name || r.Key != want.Key || (r.Optional != nil && *r.Optional) {
			t.Errorf("token from Secret %s key %s (optional %v), want every reader on %s key %s, not optional", r.Name, r.Key, r.Optional, want.Name, want.Key)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	line := "kubectl create secret generic " + want.Name + " --from-literal=" + want.Key + "="
	if !strings.Contains(string(readme), line) {
		t.Errorf("deploy/README.md has no %q...: the Secret the pods read is made nowhere", line)
	}
	token := c.Services["coordinator"].Environment[tokenEnv]
	for name, s := range c.Services {
		if got := s.Environment[tokenEnv]; got == "" || got != token {
			t.Errorf("compose %s %s = %q, want the coordinator's %q", name, tokenEnv, got, token)
		}
	}
}

func TestFlagValue(t *testing.T) {
	args := []string{"worker", "--join", "a:1", "--slots=2", "-name", "w", "-x=y", "--json"}
	for _, tc := range []struct {
		name, want string
		ok         bool
	}{
		{"join", "a:1", true}, {"slots", "2", true}, {"name", "w", true}, {"x", "y", true},
		{"json", "", false}, {"missing", "", false}, {"worker", "", false},
	} {
		if got, ok := FlagValue(args, tc.name); got != tc.want || ok != tc.ok {
			t.Errorf("FlagValue(%q, %q) = %q, %v, want %q, %v", args, tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestInterpolate(t *testing.T) {
	for in, want := range map[string]string{
		"${NQUEENS_IMAGE:-nqueens:dev}": "nqueens:dev",
		"--n ${N-14} x":                 "--n 14 x",
		"a ${EMPTY:-} b ${UNSET}":       "a  b ",
		"plain":                         "plain",
	} {
		if got := Interpolate(in); got != want {
			t.Errorf("Interpolate(%q) = %q, want %q", in, got, want)
		}
	}
}

// dockerfile indexes the Dockerfile's instructions by keyword, continuation
// lines joined.
func dockerfile(t *testing.T) (string, map[string][]string) {
	t.Helper()
	data, err := os.ReadFile("../../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), "\\\n", " ")
	instr := map[string][]string{}
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		instr[strings.ToUpper(f[0])] = append(instr[strings.ToUpper(f[0])], strings.Join(f[1:], " "))
	}
	return text, instr
}

// TestDockerfileMatchesCompose: the image ends FROM scratch and runs as the
// same user; its HEALTHCHECK probes the port that both roles serve health
// on; every program that Compose, Kubernetes and the HEALTHCHECK start is
// one the Dockerfile builds; and Compose builds with the Dockerfile's
// default builder image.
func TestDockerfileMatchesCompose(t *testing.T) {
	_, objs, c := setup(t)
	text, instr := dockerfile(t)
	if got := instr["FROM"]; len(got) == 0 || got[len(got)-1] != "scratch" {
		t.Errorf("Dockerfile FROM = %q, want the last stage FROM scratch", got)
	}
	if got, want := instr["USER"], c.Services["coordinator"].User; len(got) != 1 || got[0] != want {
		t.Errorf("Dockerfile USER = %q, want %q like compose", got, want)
	}
	hc := instr["HEALTHCHECK"]
	if len(hc) != 1 {
		t.Fatalf("Dockerfile has %d HEALTHCHECK lines, want 1", len(hc))
	}
	_, cmd, ok := strings.Cut(hc[0], "CMD ")
	if !ok || !strings.HasPrefix(cmd, "[") {
		t.Fatalf("HEALTHCHECK %q is not exec form (CMD [...]): a scratch image has no shell", hc[0])
	}
	var argv []string
	for _, a := range strings.Split(strings.Trim(cmd, "[] "), ",") {
		argv = append(argv, strings.Trim(strings.TrimSpace(a), `"`))
	}
	probe := flagPort(t, "Dockerfile HEALTHCHECK", argv, "addr")
	cargs, _ := c.Services["coordinator"].Args()
	wargs, _ := c.Services["worker"].Args()
	for what, port := range map[string]string{
		"coordinator --listen":   flagPort(t, "compose coordinator", cargs, "listen"),
		"worker --health-listen": flagPort(t, "compose worker", wargs, "health-listen"),
	} {
		if port != probe {
			t.Errorf("Dockerfile HEALTHCHECK probes port %s, but compose %s is on %s", probe, what, port)
		}
	}
	if got := strings.Fields(strings.Join(instr["EXPOSE"], " ")); !slices.Contains(got, probe) {
		t.Errorf("Dockerfile EXPOSE = %q, want %s", got, probe)
	}

	// The programs: go build -o /out/bin/ ./cmd/X names each one X.
	built := map[string]bool{}
	for _, m := range regexp.MustCompile(`\./cmd/([\w-]+)`).FindAllStringSubmatch(text, -1) {
		built[m[1]] = true
	}
	if len(built) == 0 {
		t.Error("the Dockerfile builds no ./cmd/X: the test's list of programs is wrong")
	}
	started := map[string]string{"Dockerfile HEALTHCHECK": strings.TrimPrefix(argv[0], "/usr/local/bin/")}
	for name, args := range map[string][]string{"coordinator": cargs, "worker": wargs} {
		started["compose "+name] = args[0]
		if hc := c.Services[name].Healthcheck; hc != nil && len(hc.Test) > 1 {
			started["compose "+name+" healthcheck"] = strings.TrimPrefix(hc.Test[1], "/usr/local/bin/")
		}
	}
	for _, p := range pods(objs) {
		for _, ctr := range p.spec.Containers {
			if len(ctr.Command) > 0 {
				started[p.owner] = ctr.Command[0]
			}
		}
	}
	for who, prog := range started {
		if !built[prog] {
			t.Errorf("%s starts %q, which the Dockerfile does not build (it builds %v)", who, prog, built)
		}
	}

	// Compose's default builder image is the Dockerfile's.
	var def string
	for _, a := range instr["ARG"] {
		if v, ok := strings.CutPrefix(a, "GO_IMAGE="); ok {
			def = v
		}
	}
	b := c.Services["coordinator"].Build
	if b == nil || def == "" || b.Args["GO_IMAGE"] != def {
		t.Errorf("compose coordinator build = %+v, want args GO_IMAGE defaulting to the Dockerfile's %q", b, def)
	}
}

// render runs kubectl's built-in kustomize on dir and decodes the result
// strictly: this is what `kubectl apply -k dir` sends. Without kubectl the
// test is skipped (the manifests are still decoded one by one).
func render(t *testing.T, dir string) Objects {
	t.Helper()
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not installed; the manifests were still decoded one by one")
	}
	out, err := exec.Command(kubectl, "kustomize", dir).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("kubectl kustomize %s: %v\n%s", dir, err, ee.Stderr)
		}
		t.Fatalf("kubectl kustomize %s: %v", dir, err)
	}
	rendered, err := DecodeStream(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("kubectl kustomize %s: %v", dir, err)
	}
	return rendered
}

// TestKustomizeBuild: both kustomizations render, every object decodes
// strictly, none is lost, and the pods run the image Compose runs.
func TestKustomizeBuild(t *testing.T) {
	rendered := render(t, k8sDir)
	k, objs, c := setup(t)
	if got, want := rendered.Count(), objs.Count()+len(k.ConfigMapGenerator); got != want {
		t.Errorf("kustomize rendered %s, want %s and the generated ConfigMap", rendered.Summary(), objs.Summary())
	}
	want := c.Services["coordinator"].Image
	for _, p := range pods(rendered) {
		for _, ctr := range p.spec.Containers {
			if ctr.Image != want {
				t.Errorf("rendered %s container %s image = %q, want %q", p.owner, ctr.Name, ctr.Image, want)
			}
		}
	}
	if got, want := render(t, monitoringDir).Summary(), loadMonitoring(t).Summary(); got != want {
		t.Errorf("kustomize rendered %s for deploy/k8s/monitoring, want %s", got, want)
	}
}

// jobSettings returns the rendered coordinator's N (--n, or NQUEENS_N
// of the ConfigMaps its container takes its environment from) and the
// workers' replicas.
func jobSettings(t *testing.T, o Objects) (string, int32) {
	t.Helper()
	if len(o.Jobs) != 1 || len(o.Deployments) != 1 || o.Deployments[0].Spec.Replicas == nil {
		t.Fatalf("rendered %s, want one Job and one Deployment with replicas", o.Summary())
	}
	ctr := o.Jobs[0].Spec.Template.Spec.Containers[0]
	if n, ok := FlagValue(args(ctr), "n"); ok {
		return n, *o.Deployments[0].Spec.Replicas
	}
	n := ""
	for _, from := range ctr.EnvFrom {
		for _, cm := range o.ConfigMaps {
			if from.ConfigMapRef != nil && from.ConfigMapRef.Name == cm.Name && cm.Data[nEnv] != "" {
				n = cm.Data[nEnv]
			}
		}
	}
	return n, *o.Deployments[0].Spec.Replicas
}

// nEnv is the coordinator's --n in the environment (every flag is
// NQUEENS_<FLAG> there).
const nEnv = "NQUEENS_N"

// TestJobSettingsOneLine: the board size and the number of workers are one
// line each in kustomization.yaml (as deploy/README.md says), and editing
// that line changes what is deployed.
func TestJobSettingsOneLine(t *testing.T) {
	k, _, _ := setup(t)
	if len(k.ConfigMapGenerator) != 1 || len(k.Replicas) != 1 {
		t.Fatalf("kustomization.yaml: configMapGenerator %v, replicas %v; want one of each", k.ConfigMapGenerator, k.Replicas)
	}
	n, _ := k.ConfigMapGenerator[0].Literal(nEnv)
	n0, r0 := jobSettings(t, render(t, k8sDir))
	if n == "" || n0 != n || int(r0) != k.Replicas[0].Count {
		t.Errorf("rendered N=%s and %d workers, want the kustomization's %s=%s and count %d", n0, r0, nEnv, n, k.Replicas[0].Count)
	}

	dir := t.TempDir()
	files, err := filepath.Glob(filepath.Join(k8sDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(f) == "kustomization.yaml" {
			for from, to := range map[string]string{"- " + nEnv + "=" + n + "\n": "- " + nEnv + "=23\n", "count: " + strconv.Itoa(k.Replicas[0].Count) + "\n": "count: 7\n"} {
				if strings.Count(string(data), from) != 1 {
					t.Fatalf("kustomization.yaml has not one line %q", from)
				}
				data = []byte(strings.Replace(string(data), from, to, 1))
			}
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if n1, r1 := jobSettings(t, render(t, dir)); n1 != "23" || r1 != 7 {
		t.Errorf("with %s=23 and count: 7, rendered N=%s and %d workers", nEnv, n1, r1)
	}
}

// TestDecodeStream: a multi-document stream (the manifests joined as
// kustomize prints them) decodes into the same objects as the files, and a
// misspelt field in any document fails, naming the document.
func TestDecodeStream(t *testing.T) {
	k, objs, _ := setup(t)
	var stream []string
	for _, res := range k.Resources {
		data, err := os.ReadFile(filepath.Join(k8sDir, res))
		if err != nil {
			t.Fatal(err)
		}
		stream = append(stream, string(data))
	}
	got, err := DecodeStream(strings.NewReader(strings.Join(stream, "\n---\n")))
	if err != nil || got.Summary() != objs.Summary() {
		t.Fatalf("DecodeStream of the manifests = %s, %v; want %s", got.Summary(), err, objs.Summary())
	}
	last := len(stream) - 1
	for !strings.Contains(stream[last], "securityContext:") {
		last--
	}
	bad := slices.Clone(stream)
	bad[last] = strings.Replace(bad[last], "securityContext:", "securityContex:", 1)
	if bad[last] == stream[last] {
		t.Fatalf("%s has no securityContext to misspell", k.Resources[last])
	}
	_, err = DecodeStream(strings.NewReader(strings.Join(bad, "\n---\n")))
	if want := "document " + strconv.Itoa(last+1) + ": "; err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "securityContex") {
		t.Errorf("DecodeStream with a misspelt field in document %d: %v; want an error starting %q naming the field", last+1, err, want)
	}
	if _, err := DecodeStream(strings.NewReader("# nothing\n---\n")); err == nil {
		t.Error("DecodeStream of a stream with no objects succeeded, want an error")
	}
}

// TestCoordinatorComesBack: in Kubernetes as in Compose, the coordinator
// journals to storage that outlives it and starts with --resume=auto, and
// something brings a dead coordinator back: the Job makes a new pod (with
// the claim mounted) for a failure, but not for a usage error; Compose
// restarts the container on failure only, so a finished job stays done.
func TestCoordinatorComesBack(t *testing.T) {
	_, objs, c := setup(t)
	job := objs.Jobs[0]
	ctr := onlyContainer(t, pod{"Job/" + job.Name, job.Spec.Template.Spec, nil})
	state, _ := FlagValue(args(ctr), "state")
	resume, _ := FlagValue(args(ctr), "resume")
	if !strings.HasPrefix(state, "/state/") || resume != "auto" {
		t.Errorf("Job %s: --state %q --resume %q; want a journal under /state and --resume=auto", job.Name, state, resume)
	}
	var mounted string
	for _, m := range ctr.VolumeMounts {
		if m.MountPath == "/state" && !m.ReadOnly {
			mounted = m.Name
		}
	}
	var claim string
	for _, v := range job.Spec.Template.Spec.Volumes {
		if v.Name == mounted && v.PersistentVolumeClaim != nil {
			claim = v.PersistentVolumeClaim.ClaimName
		}
	}
	if claim == "" || len(objs.Claims) != 1 || objs.Claims[0].Name != claim {
		t.Errorf("Job %s mounts volume %q at /state from claim %q; want the kustomization's PersistentVolumeClaim", job.Name, mounted, claim)
	}
	if fs := job.Spec.Template.Spec.SecurityContext.FSGroup; fs == nil || *fs != 65532 {
		t.Errorf("Job %s: fsGroup %v, want 65532 so the runtime user can write the claim", job.Name, fs)
	}
	if bl := job.Spec.BackoffLimit; bl == nil || *bl < 1 || job.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("Job %s: backoffLimit %v, restartPolicy %s; want at least 1 and Never, so a dead coordinator gets a new pod", job.Name, bl, job.Spec.Template.Spec.RestartPolicy)
	}
	failsOnUsage := false
	if pfp := job.Spec.PodFailurePolicy; pfp != nil {
		for _, r := range pfp.Rules {
			if r.Action == "FailJob" && r.OnExitCodes != nil && r.OnExitCodes.Operator == "In" && slices.Contains(r.OnExitCodes.Values, 2) {
				failsOnUsage = true
			}
		}
	}
	if !failsOnUsage {
		t.Errorf("Job %s: no podFailurePolicy rule fails the Job on exit 2 (a usage error repeats on every retry)", job.Name)
	}

	cc := c.Services["coordinator"]
	cargs, err := cc.Args()
	if err != nil {
		t.Fatal(err)
	}
	cstate, _ := FlagValue(cargs, "state")
	cresume, _ := FlagValue(cargs, "resume")
	if cstate != state || cresume != "auto" {
		t.Errorf("compose coordinator: --state %q --resume %q; want %q and auto like the Job", cstate, cresume, state)
	}
	if !slices.Contains(cc.Volumes, "state:/state") {
		t.Errorf("compose coordinator volumes %q: want the named volume state:/state", cc.Volumes)
	}
	if !strings.HasPrefix(cc.Restart, "on-failure") {
		t.Errorf("compose coordinator restart %q: want on-failure (always or unless-stopped would restart a finished job)", cc.Restart)
	}
}
