//go:build unix

package overhead_test

import (
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"weft.dev/weft"
)

// BenchmarkOverhead explores each program written with weft's API and
// rewritten from plain Go, one after the other in each iteration (in turn
// first, after a garbage collection that leaves neither the other's
// garbage), with one worker. It reports the executions per second of the
// process's CPU time of each (weft-execs/s, rewritten-execs/s), which the
// load of a shared machine disturbs less than wall time, and how many
// times faster the program written with weft's API is explored
// (weft/rewritten): the median, over the iterations, of the ratio of the
// two explorations' CPU times, robust to the bursts of load that hit one
// exploration and not the other. 1 means that the rewrite costs nothing.
func BenchmarkOverhead(b *testing.B) {
	for _, p := range programs {
		b.Run(p.name, func(b *testing.B) {
			var cpu [2]time.Duration
			var execs [2]int
			var ratios []float64
			bodies := [2]func(){p.weft, p.rewritten}
			for b.Loop() {
				var this [2]time.Duration
				var n [2]int
				for k := range 2 {
					v := (len(ratios) + k) % 2
					runtime.GC()
					cpu0 := cpuTime(b)
					res, err := weft.Explore(bodies[v], weft.WithWorkers(1))
					this[v] = cpuTime(b) - cpu0
					if err != nil || len(res.Bugs) > 0 {
						b.Fatalf("%v %v", err, res.Bugs)
					}
					n[v] = res.Executions
				}
				if n[0] != n[1] {
					b.Fatalf("%d executions with weft's API, %d rewritten", n[0], n[1])
				}
				for v := range 2 {
					cpu[v] += this[v]
					execs[v] += n[v]
				}
				ratios = append(ratios, this[1].Seconds()/this[0].Seconds())
			}
			slices.Sort(ratios)
			b.ReportMetric(float64(execs[0])/cpu[0].Seconds(), "weft-execs/s")
			b.ReportMetric(float64(execs[1])/cpu[1].Seconds(), "rewritten-execs/s")
			b.ReportMetric(ratios[len(ratios)/2], "weft/rewritten")
		})
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
