package bench

import (
	"strconv"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
)

// Benchmarks of the paths every execution of the condpor engine takes,
// each on a program that stresses one of them, through the public API:
// go test -bench . ./bench

// explore runs body under condpor and fails b on a bug or an error.
func explore(b *testing.B, body func(), want int) weft.Result {
	b.Helper()
	res, err := weft.Explore(body)
	if err != nil {
		b.Fatal(err)
	}
	if len(res.Bugs) > 0 || res.Executions != want {
		b.Fatalf("%d executions, bugs %v; want %d, none", res.Executions, res.Bugs, want)
	}
	return res
}

// sizes are the lengths of the executions of the benchmarks below: the
// cost per event should not grow with them.
var sizes = []int{100, 1000, 10000}

// BenchmarkEventAddition measures the addition of an event to the
// execution graph: one goroutine, one execution of n atomic additions to
// one location (same) or to n locations (spread).
func BenchmarkEventAddition(b *testing.B) {
	for _, spread := range []bool{false, true} {
		for _, n := range sizes {
			name := "same/" + strconv.Itoa(n)
			if spread {
				name = "spread/" + strconv.Itoa(n)
			}
			b.Run(name, func(b *testing.B) {
				body := func() {
					xs := make([]atomic.Int64, n)
					for i := range n {
						if spread {
							xs[i].Add(1)
						} else {
							xs[0].Add(1)
						}
					}
				}
				for b.Loop() {
					explore(b, body, 1)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/event")
			})
		}
	}
}

// BenchmarkRevisit measures backward revisits: n goroutines read x once
// and one writes it, so that each of the 2^n executions but the first is
// made by the write revisiting reads that came before it.
func BenchmarkRevisit(b *testing.B) {
	const n = 10
	body := func() {
		var x atomic.Int64
		fs := []func(){func() { x.Store(1) }}
		for range n {
			fs = append(fs, func() { x.Load() })
		}
		parallel(fs...)
	}
	execs := 0
	for b.Loop() {
		execs += explore(b, body, 1<<n).Executions
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(execs), "ns/execution")
}

// BenchmarkReplay measures the replay of recorded events, which every
// execution does for the prefix it shares with the one it was made from:
// main performs n operations before two goroutines race on one variable,
// so that each execution after the first replays those n.
func BenchmarkReplay(b *testing.B) {
	for _, n := range sizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			body := func() {
				var x atomic.Int64
				ys := make([]atomic.Int64, n)
				for i := range ys {
					ys[i].Add(1)
				}
				parallel(func() { x.Store(1) }, func() { x.Store(2) }, func() { x.Load() })
			}
			execs := 0
			for b.Loop() {
				execs += explore(b, body, 6).Executions
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(execs*n), "ns/replayed-event")
		})
	}
}

// BenchmarkHandoff measures the handoff of control between goroutines:
// main starts n goroutines one after the other and waits for each, two
// handoffs per goroutine (to it when main waits, back when it ends).
func BenchmarkHandoff(b *testing.B) {
	const n = 1000
	body := func() {
		for range n {
			weft.Go(func() {}).Join()
		}
	}
	for b.Loop() {
		explore(b, body, 1)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*2*n), "ns/handoff")
}
