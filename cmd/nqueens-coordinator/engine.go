package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/nqueens/nqueens/coordinator"
)

// registerEngine binds --engine and --worker-memory.
func registerEngine(fs *flag.FlagSet, cfg *options) {
	cfg.Engine = coordinator.EngineAuto
	fs.Var(engineFlag{&cfg.Engine}, "engine", "counting engine: auto (the quadrant join where it is the faster one and its tables fit --worker-memory, else the backtracker; the choice and why are logged), join or backtrack; listings, --unique, --fix and --first always backtrack")
	cfg.WorkerMemory = coordinator.DefaultWorkerMemory
	fs.Var(bytesFlag{&cfg.WorkerMemory}, "worker-memory", "memory a worker may spend on the join's tables (`SIZE`: bytes, or with KiB, MiB, GiB; Kubernetes' Mi and Gi too), its container's limit; where the join's measured peak is above it, --engine auto counts with the backtracker")
}

// engineFlag is --engine.
type engineFlag struct{ v *coordinator.Engine }

func (e engineFlag) String() string {
	if e.v == nil {
		return string(coordinator.EngineAuto)
	}
	return e.v.String()
}

func (e engineFlag) Set(s string) error {
	v, err := coordinator.ParseEngine(s)
	if err != nil {
		return fmt.Errorf("want auto, join or backtrack")
	}
	*e.v = v
	return nil
}

// bytesFlag is a size in bytes, KiB, MiB or GiB.
type bytesFlag struct{ v *int64 }

// byteUnits are the suffixes bytesFlag reads, longest first.
var byteUnits = []struct {
	suffix string
	scale  int64
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"Gi", 1 << 30}, {"Mi", 1 << 20}, {"Ki", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}}

func (b bytesFlag) String() string {
	if b.v == nil {
		return ""
	}
	for _, u := range byteUnits[:3] {
		if *b.v >= u.scale && *b.v%u.scale == 0 {
			return fmt.Sprintf("%d%s", *b.v/u.scale, u.suffix)
		}
	}
	return strconv.FormatInt(*b.v, 10)
}

func (b bytesFlag) Set(s string) error {
	num, scale := strings.TrimSpace(s), int64(1)
	for _, u := range byteUnits {
		if strings.HasSuffix(num, u.suffix) {
			num, scale = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.scale
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/scale {
		return fmt.Errorf("want a positive size such as 1GiB, 512MiB or 1073741824")
	}
	*b.v = n * scale
	return nil
}
