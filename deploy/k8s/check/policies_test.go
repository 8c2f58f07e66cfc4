package check

import (
	"slices"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
)

// selects reports whether the label selector of matchLabels selects a pod
// with podLabels.
func selects(matchLabels, podLabels map[string]string) bool {
	return len(matchLabels) > 0 && labels.SelectorFromSet(matchLabels).Matches(labels.Set(podLabels))
}

// TestCoordinatorDisruptionBudget: voluntary evictions (drains, scale-downs)
// leave the running coordinator alone: a budget of one available pod
// selects the Job's pod and nothing else, and a pod that is not ready may
// still go.
func TestCoordinatorDisruptionBudget(t *testing.T) {
	_, objs, _ := setup(t)
	if len(objs.Budgets) != 1 {
		t.Fatalf("%d PodDisruptionBudgets, want 1", len(objs.Budgets))
	}
	pdb := objs.Budgets[0]
	job := pods(Objects{Jobs: objs.Jobs})[0]
	worker := pods(Objects{Deployments: objs.Deployments})[0]
	if pdb.Spec.Selector == nil || !selects(pdb.Spec.Selector.MatchLabels, job.label) || selects(pdb.Spec.Selector.MatchLabels, worker.label) {
		t.Errorf("PodDisruptionBudget/%s selector %v: want the coordinator's pod %v and not the workers'", pdb.Name, pdb.Spec.Selector, job.label)
	}
	if m := pdb.Spec.MinAvailable; m == nil || m.String() != "1" || pdb.Spec.MaxUnavailable != nil {
		t.Errorf("PodDisruptionBudget/%s minAvailable %v maxUnavailable %v, want minAvailable 1 (a Job has no scale for maxUnavailable)", pdb.Name, m, pdb.Spec.MaxUnavailable)
	}
	if p := pdb.Spec.UnhealthyPodEvictionPolicy; p == nil || *p != "AlwaysAllow" {
		t.Errorf("PodDisruptionBudget/%s unhealthyPodEvictionPolicy %v, want AlwaysAllow (a wedged coordinator must not block a drain)", pdb.Name, p)
	}
}

// TestNetworkPolicy: every nqueens pod is selected, and its ports (the
// gRPC and health port, the status port) are open to pods of the namespace
// only; from elsewhere (the monitoring namespace) the status port alone.
func TestNetworkPolicy(t *testing.T) {
	_, objs, c := setup(t)
	if len(objs.Policies) != 1 {
		t.Fatalf("%d NetworkPolicies, want 1", len(objs.Policies))
	}
	np := objs.Policies[0]
	for _, p := range pods(objs) {
		if !selects(np.Spec.PodSelector.MatchLabels, p.label) {
			t.Errorf("NetworkPolicy/%s does not select %s's pods %v", np.Name, p.owner, p.label)
		}
	}
	if !slices.Contains(np.Spec.PolicyTypes, "Ingress") {
		t.Errorf("NetworkPolicy/%s policyTypes %v, want Ingress", np.Name, np.Spec.PolicyTypes)
	}
	cargs, err := c.Services["coordinator"].Args()
	if err != nil {
		t.Fatal(err)
	}
	grpcPort := flagPort(t, "compose coordinator", cargs, "listen")
	httpPort := flagPort(t, "compose coordinator", cargs, "http")
	inNamespace := false
	for i, rule := range np.Spec.Ingress {
		var ports []string
		for _, p := range rule.Ports {
			if p.Port == nil || (p.Protocol != nil && *p.Protocol != corev1.ProtocolTCP) || p.EndPort != nil {
				t.Errorf("NetworkPolicy/%s rule %d port %+v: want single TCP ports", np.Name, i, p)
				continue
			}
			ports = append(ports, p.Port.String())
		}
		for _, peer := range rule.From {
			switch {
			case peer.IPBlock != nil:
				t.Errorf("NetworkPolicy/%s rule %d lets in an IP block %v", np.Name, i, peer.IPBlock)
			case peer.NamespaceSelector == nil && peer.PodSelector != nil:
				inNamespace = inNamespace || (slices.Contains(ports, grpcPort) && slices.Contains(ports, httpPort))
			default: // another namespace: the status port only
				if len(ports) != 1 || ports[0] != httpPort || len(peer.NamespaceSelector.MatchLabels) == 0 {
					t.Errorf("NetworkPolicy/%s rule %d lets %v reach ports %v, want only the status port %s from a named namespace", np.Name, i, peer.NamespaceSelector, ports, httpPort)
				}
			}
		}
		if len(rule.From) == 0 {
			t.Errorf("NetworkPolicy/%s rule %d admits every source", np.Name, i)
		}
	}
	if !inNamespace {
		t.Errorf("NetworkPolicy/%s does not open ports %s and %s to the namespace's pods", np.Name, grpcPort, httpPort)
	}
}

// TestWorkersLowPriority: the workers run at a PriorityClass of the
// kustomization that is below the default (0), never preempts, and is not
// the cluster's default; the coordinator keeps the default priority.
func TestWorkersLowPriority(t *testing.T) {
	_, objs, _ := setup(t)
	if len(objs.Priorities) != 1 {
		t.Fatalf("%d PriorityClasses, want 1", len(objs.Priorities))
	}
	pc := objs.Priorities[0]
	if pc.Value >= 0 || pc.GlobalDefault || pc.PreemptionPolicy == nil || *pc.PreemptionPolicy != corev1.PreemptNever {
		t.Errorf("PriorityClass/%s: value %d, globalDefault %v, preemptionPolicy %v; want below 0, false, Never", pc.Name, pc.Value, pc.GlobalDefault, pc.PreemptionPolicy)
	}
	if got := objs.Deployments[0].Spec.Template.Spec.PriorityClassName; got != pc.Name {
		t.Errorf("the worker Deployment's priorityClassName = %q, want %q", got, pc.Name)
	}
	if got := objs.Jobs[0].Spec.Template.Spec.PriorityClassName; got != "" {
		t.Errorf("the coordinator Job's priorityClassName = %q, want the default priority", got)
	}
}

// TestCoordinatorMemory: the coordinator's memory limit holds the largest
// figures of the README's resource table for 1,000 workers and 10^7 tasks
// (up to 540 MB), and GOMEMLIMIT sits below the limit, so the garbage
// collector works harder before the kernel kills the pod.
func TestCoordinatorMemory(t *testing.T) {
	_, objs, _ := setup(t)
	ctr := objs.Jobs[0].Spec.Template.Spec.Containers[0]
	limit := ctr.Resources.Limits[corev1.ResourceMemory]
	if limit.Cmp(resource.MustParse("1Gi")) < 0 {
		t.Errorf("coordinator memory limit %s, want at least 1Gi", limit.String())
	}
	i := slices.IndexFunc(ctr.Env, func(e corev1.EnvVar) bool { return e.Name == "GOMEMLIMIT" })
	if i < 0 {
		t.Fatal("the coordinator has no GOMEMLIMIT")
	}
	// GOMEMLIMIT spells MiB and GiB as Go does; resource.Quantity wants Mi.
	v := ctr.Env[i].Value
	q, err := resource.ParseQuantity(v[:len(v)-1])
	if err != nil || v[len(v)-1] != 'B' {
		t.Fatalf("GOMEMLIMIT %q: want a size like 900MiB", v)
	}
	if q.Cmp(limit) >= 0 || q.Value() < limit.Value()*8/10 {
		t.Errorf("GOMEMLIMIT %s (%s bytes), want 80-100%% of the limit %s", v, strconv.FormatInt(q.Value(), 10), limit.String())
	}
}
