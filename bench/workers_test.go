//go:build unix

package bench

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"weft.dev/weft"
)

// BenchmarkWorkers compares one and two workers on rows that take a while
// under condpor, and under sdpor, whose parts wait for the races of the
// parts before them: go test -bench Workers ./bench. Each reports the
// executions per second of wall time, and per second of the process's
// CPU time, which tells the cost of sharing work from the want of free
// cores on a busy machine. The counts must not depend on the workers.
func BenchmarkWorkers(b *testing.B) {
	for _, row := range []struct{ id, engine string }{
		{"GenMCFib/5", "condpor"}, {"Counter2/6", "condpor"}, {"SVStack2/8", "condpor"}, {"LBQueue/6", "condpor"},
		{"MPC/3,5", "sdpor"}, {"POL/7,3", "sdpor"},
	} {
		id := row.id
		bm, ok := Lookup(id)
		if !ok {
			b.Fatalf("no benchmark %s", id)
		}
		if row.engine != "condpor" {
			id += "/" + row.engine
		}
		var want string
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", id, w), func(b *testing.B) {
				var res weft.Result
				execs, wall := 0, time.Duration(0)
				cpu0 := cpuTime(b)
				for b.Loop() {
					var err error
					res, err = weft.Explore(bm.Body(Condpor), weft.WithEngine(row.engine), weft.WithWorkers(w))
					if err != nil {
						b.Fatal(err)
					}
					execs += res.Executions
					wall += res.Elapsed
				}
				cpu := cpuTime(b) - cpu0
				got := fmt.Sprintf("%d executions (%d complete, %d blocked, %d redundant), %d bugs", res.Executions, res.Complete, res.Blocked, res.Redundant, len(res.Bugs))
				if want == "" {
					want = got
				} else if got != want {
					b.Errorf("%d workers: %s, one worker: %s", w, got, want)
				}
				b.ReportMetric(float64(execs)/wall.Seconds(), "executions/s")
				b.ReportMetric(float64(execs)/cpu.Seconds(), "executions/cpu-s")
			})
		}
	}
}

// BenchmarkSpeedup measures what two workers give over one, exploring
// GenMCFib/5 with condpor and sampling it with random (100,000
// executions), on a machine
// whose speed drifts by more than the margins of the targets (10-30%
// from one run to the next here): each iteration explores the row with
// one worker and with two, one right after the other, which goes first
// in turns; then two one-worker explorations at once; then a control that
// shares nothing, register arithmetic on one goroutine and then on two at
// once, for about as long. It reports medians of ratios: speedup, two
// workers over the one worker beside them; twin-speedup, the two
// explorations over that one worker (what two cores give this program
// when its executions are not shared out); control-speedup, the control
// on two goroutines over one (what they give a program that needs no
// memory); of-control, speedup over control-speedup. -v logs every ratio.
//
//	go test -run '^$' -bench Speedup -benchtime 60x -v ./bench
func BenchmarkSpeedup(b *testing.B) {
	for _, row := range []struct {
		id, engine string
		samples    int // the executions of random
	}{{"GenMCFib/5", "condpor", 0}, {"GenMCFib/5", "random", 100_000}} {
		bm, ok := Lookup(row.id)
		if !ok {
			b.Fatalf("no benchmark %s", row.id)
		}
		want := bm.Want[Condpor]
		if row.samples > 0 {
			want = row.samples
		}
		b.Run(row.id+"/"+row.engine, func(b *testing.B) {
			explore := func(workers int) (float64, error) {
				res, err := weft.Explore(bm.Body(Condpor), weft.WithEngine(row.engine), weft.WithMaxExecutions(row.samples), weft.WithWorkers(workers))
				if err != nil {
					return 0, err
				}
				if res.Complete != want || len(res.Bugs) > 0 {
					return 0, fmt.Errorf("%d workers: %d complete, %d bugs; want %d complete, none", workers, res.Complete, len(res.Bugs), want)
				}
				return float64(res.Executions) / res.Elapsed.Seconds(), nil
			}
			rate := func(workers int) float64 {
				r, err := explore(workers)
				if err != nil {
					b.Fatal(err)
				}
				return r
			}
			// twin is the rate of two one-worker explorations at once.
			twin := func() float64 {
				var wg sync.WaitGroup
				var errs [2]error
				start := time.Now()
				for k := range errs {
					wg.Go(func() { _, errs[k] = explore(1) })
				}
				wg.Wait()
				if err := errors.Join(errs[:]...); err != nil {
					b.Fatal(err)
				}
				return 2 * float64(want) / time.Since(start).Seconds()
			}
			var speedups, twins, controls []float64
			steps := 0
			for i := 0; b.Loop(); i++ {
				var one, two float64
				if i%2 == 0 {
					one, two = rate(1), rate(2)
				} else {
					two, one = rate(2), rate(1)
				}
				speedups = append(speedups, two/one)
				twins = append(twins, twin()/one)
				if steps == 0 {
					steps = calibrate(time.Duration(float64(want) / one * float64(time.Second)))
				}
				alone := spin(1, steps)
				controls = append(controls, 2*alone.Seconds()/spin(2, steps).Seconds())
			}
			b.Logf("pairs' speed-ups %.2f\ntwins %.2f\ncontrols %.2f", speedups, twins, controls)
			s, c := median(speedups), median(controls)
			b.ReportMetric(s, "speedup")
			b.ReportMetric(median(twins), "twin-speedup")
			b.ReportMetric(c, "control-speedup")
			b.ReportMetric(s/c, "of-control")
		})
	}
}

// calibrate returns the steps of spin that take one goroutine about d.
func calibrate(d time.Duration) int {
	const probe = 1 << 24
	return int(float64(probe) * d.Seconds() / spin(1, probe).Seconds())
}

// spin runs n goroutines that each take steps steps of a linear
// congruential generator, which keeps a core busy without touching
// memory, and returns how long they took together.
func spin(n, steps int) time.Duration {
	start := time.Now()
	var wg sync.WaitGroup
	sums := make([]uint64, n)
	for g := range n {
		wg.Go(func() {
			x := uint64(g)
			for range steps {
				x = x*6364136223846793005 + 1442695040888963407
			}
			sums[g] = x
		})
	}
	wg.Wait()
	return time.Since(start)
}

// median returns the median of xs, which it sorts.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// cpuTime returns the user and system time of the process so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkShards explores a row whole and as 4 shards one after another
// (go test -bench Shards ./bench), checks that the shards add up to the
// whole, and reports how far the largest shard is from a quarter of the
// whole, in percent of a quarter, and the shards' share of the whole's
// executions in the start that every shard runs.
func BenchmarkShards(b *testing.B) {
	const n = 4
	for _, id := range []string{"CoarseList/6"} {
		bm, ok := Lookup(id)
		if !ok {
			b.Fatalf("no benchmark %s", id)
		}
		b.Run(id, func(b *testing.B) {
			for b.Loop() {
				whole, err := weft.Explore(bm.Body(Condpor), weft.WithWorkers(1))
				if err != nil {
					b.Fatal(err)
				}
				sum, worst := 0, 0.0
				var sizes []int
				for i := range n {
					r, err := weft.Explore(bm.Body(Condpor), weft.WithWorkers(1), weft.WithShard(i, n))
					if err != nil {
						b.Fatal(err)
					}
					sum += r.Executions
					sizes = append(sizes, r.Executions)
					quarter := float64(whole.Executions) / n
					worst = max(worst, 100*abs(float64(r.Executions)-quarter)/quarter)
				}
				if sum != whole.Executions {
					b.Errorf("%d shards: %v executions, sum %d; the whole: %d", n, sizes, sum, whole.Executions)
				}
				b.Logf("%s: %d executions in %v; shards %v", id, whole.Executions, whole.Elapsed, sizes)
				b.ReportMetric(worst, "%-off-a-quarter")
			}
		})
	}
}

func abs(x float64) float64 { return max(x, -x) }

// BenchmarkCheckpoint explores GenMCFib(5) in runs cut short by a
// timeout, each resuming from the checkpoint of the one before (go test
// -bench Checkpoint ./bench), checks that the last run's counts are the
// whole exploration's, and reports how many runs it took. Runs too short
// for some parts (the largest hold thousands of executions) get them
// done too: the next run cuts a part that a run began into parts.
func BenchmarkCheckpoint(b *testing.B) {
	bm, ok := Lookup("GenMCFib/5")
	if !ok {
		b.Fatal("no benchmark GenMCFib/5")
	}
	whole, err := weft.Explore(bm.Body(Condpor), weft.WithWorkers(1))
	if err != nil {
		b.Fatal(err)
	}
	for _, run := range []time.Duration{200 * time.Millisecond, 100 * time.Millisecond} {
		b.Run(run.String(), func(b *testing.B) {
			for b.Loop() {
				file := filepath.Join(b.TempDir(), "ckpt")
				runs := 0
				for {
					runs++
					r, err := weft.Explore(bm.Body(Condpor), weft.WithWorkers(1), weft.WithCheckpoint(file), weft.WithTimeout(run))
					if err != nil {
						b.Fatal(err)
					}
					if r.Exhaustive {
						if r.Executions != whole.Executions {
							b.Errorf("%d executions after %d runs, want %d", r.Executions, runs, whole.Executions)
						}
						break
					}
					if runs == 1000 {
						b.Fatalf("not done after %d runs of %v: %d executions", runs, run, r.Executions)
					}
				}
				b.ReportMetric(float64(runs), "runs")
			}
		})
	}
}
