package runtime_test

import (
	"iter"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/engine/dfs"
	"weft.dev/weft/internal/engine/replay"
	"weft.dev/weft/internal/runtime"
)

// The two ways to run one goroutine at a time that the runtime could use:
// a handoff through channels, and coroutines (iter.Pull) resumed by a
// driver. One iteration is two switches (there and back). Measured on the
// project's 2-core machine: channels ~340 ns/op, coroutines ~150 ns/op, so
// the runtime uses coroutines.
func BenchmarkRawHandoff(b *testing.B) {
	b.Run("chan", func(b *testing.B) {
		ping, pong := make(chan struct{}), make(chan struct{})
		go func() {
			for range ping {
				pong <- struct{}{}
			}
		}()
		for b.Loop() {
			ping <- struct{}{}
			<-pong
		}
		close(ping)
	})
	b.Run("coroutine", func(b *testing.B) {
		mk := func() (func() (struct{}, bool), func()) {
			return iter.Pull(func(yield func(struct{}) bool) {
				for yield(struct{}{}) {
				}
			})
		}
		n1, s1 := mk()
		n2, s2 := mk()
		defer s1()
		defer s2()
		for b.Loop() {
			n1()
			n2()
		}
	})
}

// twoCounters is the body the runtime benchmarks run: two goroutines, each
// adding to its own counter n times.
func twoCounters(n int) func() {
	return func() {
		var x, y atomic.Int64
		g := weft.Go(func() {
			for range n {
				x.Add(1)
			}
		})
		for range n {
			y.Add(1)
		}
		g.Join()
	}
}

// schedule returns the schedule of twoCounters(n) in which the two
// goroutines alternate at every step (alternate) or run one after the
// other.
func schedule(n int, alternate bool) []engine.Choice {
	s := []engine.Choice{{G: 0}} // spawn
	if alternate {
		for range n {
			s = append(s, engine.Choice{G: 0}, engine.Choice{G: 1})
		}
	} else {
		for range n {
			s = append(s, engine.Choice{G: 0})
		}
		for range n {
			s = append(s, engine.Choice{G: 1})
		}
	}
	return append(s, engine.Choice{G: 1}, engine.Choice{G: 0}, engine.Choice{G: 0}) // g1 ends, join, g0 ends
}

// BenchmarkSwitch measures a goroutine switch inside weft: the same
// execution with the goroutines alternating at every step, and run one
// after the other. The difference per step is the cost of a switch; the
// "blocked" figure per step is the cost of an operation without one.
func BenchmarkSwitch(b *testing.B) {
	const n = 1000
	body := twoCounters(n)
	for _, alt := range []bool{true, false} {
		name := "blocked"
		if alt {
			name = "alternating"
		}
		b.Run(name, func(b *testing.B) {
			sched := schedule(n, alt)
			for b.Loop() {
				rep := runtime.Run(body, runtime.Config{Engine: replay.New(sched, nil)})
				if len(rep.Bugs) != 0 || rep.Complete != 1 {
					b.Fatalf("%+v", rep)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(sched)), "ns/step")
		})
	}
}

// BenchmarkDFS measures whole executions: dfs on two goroutines with three
// operations each (35 executions per exploration).
func BenchmarkDFS(b *testing.B) {
	body := twoCounters(3)
	execs := 0
	for b.Loop() {
		rep := runtime.Run(body, runtime.Config{Engine: dfs.New(engine.Config{})})
		execs += rep.Executions
	}
	b.ReportMetric(float64(execs)/b.Elapsed().Seconds(), "executions/s")
}
