//go:build unix

package bench

import (
	"fmt"
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
		{"FibBench1", "condpor"}, {"Counter2/6", "condpor"}, {"SVStack2/8", "condpor"}, {"LBQueue/6", "condpor"},
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
