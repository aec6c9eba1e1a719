//go:build unix

// Command pgogen writes the CPU profile that cmd/weft is built with
// (cmd/weft/default.pgo, for profile-guided optimization): the profile of
// weft exploring a mix of programs, each for a set share of the CPU time,
// so that no one of them decides alone what the compiler inlines. Run it
// with
//
//	go generate ./cmd/weft
//
// (about 40 s; -each sets the share). The mix, one share each, with
// weft's default engine condpor: GenMC's fib_bench (atomics, revisits),
// with one worker and with two, as weft test explores a check by default
// on a machine with several cores; rows of weft bench on atomics
// (Counter2, its values enumerated), locks with symbolic keys
// (CoarseList) and symbolic values that the solver orders (MergeSort);
// programs written in plain Go as weft test rewrites them (channels,
// select, context, WaitGroup, sync.Pool); and, for a quarter of a share
// each, rows explored with the other engines (sdpor, mpor, qpor, cdpor).
//
// The profile only guides the compiler: a stale one costs speed, never
// correctness. Make it again when the hot paths change (a new engine, a
// rewrite of the execution graph or of the scheduler), and before
// measuring the figures of docs/benchmarks.md.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime/pprof"
	"syscall"
	"time"

	"weft.dev/weft"
	"weft.dev/weft/bench"
	plain "weft.dev/weft/bench/overhead/rewritten/plain"
)

// A workload is a kind of exploration that the profile samples.
type workload struct {
	name string
	// share is its CPU time, in units of -each.
	share float64
	// explore runs one exploration that stops after d at most, and
	// returns its executions.
	explore func(d time.Duration) (int, error)
}

// workloads are the explorations sampled: weft's default engine, condpor,
// on programs of each kind for one unit of CPU time each, and the other
// engines for one unit together.
var workloads = []workload{
	{"fib_bench", 1, explore(bench.GenMCFib(5), 1)},
	{"fib_bench, 2 workers", 1, explore(bench.GenMCFib(5), 2)},
	{"Counter2/6 exen", 1, row("Counter2/6", bench.ExEn)},
	{"CoarseList/5 condpor", 1, row("CoarseList/5", bench.Condpor)},
	{"MergeSort/6 condpor", 1, row("MergeSort/6", bench.Condpor)},
	{"plain Go, rewritten", 1, programs(
		func() { plain.Pipeline(3) },
		func() { plain.Query(3) },
		func() { plain.Pool(2, 3) },
		func() { plain.Counter(3) },
		func() { plain.Atomics(2, 4) })},
	{"Philosophers/4,2 sdpor", 0.25, row("Philosophers/4,2", bench.SDPOR)},
	{"Philosophers/4,2 mpor", 0.25, row("Philosophers/4,2", bench.MPOR)},
	{"POL/7,3 qpor", 0.25, row("POL/7,3", bench.QPOR)},
	{"BB/2,2,1 cdpor", 0.25, row("BB/2,2,1", bench.CDPOR)},
}

func main() {
	out := flag.String("o", "default.pgo", "write the profile to `file`")
	each := flag.Duration("each", 5*time.Second, "sample each workload for `d` of CPU time")
	flag.Parse()
	log.SetFlags(0)
	// The profile is written beside the file and renamed over it, so
	// that a run that fails leaves the old profile.
	tmp, err := os.CreateTemp(filepath.Dir(*out), ".pgogen-*")
	if err != nil {
		log.Fatal(err)
	}
	defer os.Remove(tmp.Name())
	if err := pprof.StartCPUProfile(tmp); err != nil {
		log.Fatal(err)
	}
	for _, w := range workloads {
		n, err := spend(w, time.Duration(w.share*float64(*each)))
		if err != nil {
			log.Fatalf("%s: %v", w.name, err)
		}
		log.Printf("%s: %d executions", w.name, n)
	}
	pprof.StopCPUProfile()
	if err := tmp.Close(); err != nil {
		log.Fatal(err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.Rename(tmp.Name(), *out); err != nil {
		log.Fatal(err)
	}
}

// spend runs w's explorations until they took d of this process's CPU
// time, and returns their executions.
func spend(w workload, d time.Duration) (int, error) {
	start := cpuTime()
	total := 0
	for {
		used := cpuTime() - start
		if used >= d {
			return total, nil
		}
		n, err := w.explore(d - used)
		if err != nil {
			return total, err
		}
		total += n
	}
}

// cpuTime returns the user and system time this process has taken.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		log.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// explore explores body with workers workers and weft's default engine.
func explore(body func(), workers int) func(time.Duration) (int, error) {
	return func(d time.Duration) (int, error) {
		res, err := weft.Explore(body, weft.WithWorkers(workers), weft.WithTimeout(d))
		if err == nil && len(res.Bugs) > 0 {
			err = fmt.Errorf("bugs: %v", res.Bugs)
		}
		return res.Executions, err
	}
}

// programs explores each of bodies in turn, one per call.
func programs(bodies ...func()) func(time.Duration) (int, error) {
	next := 0
	return func(d time.Duration) (int, error) {
		body := bodies[next]
		next = (next + 1) % len(bodies)
		return explore(body, 1)(d)
	}
}

// row explores the row of weft bench named id with engine e, as weft bench
// does: with one worker.
func row(id string, e bench.Engine) func(time.Duration) (int, error) {
	return func(d time.Duration) (int, error) {
		b, ok := bench.Lookup(id)
		if !ok {
			return 0, fmt.Errorf("no row %s", id)
		}
		r, err := bench.Run(b, e, bench.Limit{Time: d, Workers: 1})
		return r.Executions, err
	}
}
