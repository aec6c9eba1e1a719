package weft_test

import (
	"maps"
	"strings"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/sync"
)

func factorial(n int) int {
	if n <= 1 {
		return 1
	}
	return n * factorial(n-1)
}

// pipeline is a producer, a squaring stage and a consumer connected by
// channels; bug makes the producer close its channel before its last send.
func pipeline(n int, bug bool) func() {
	return func() {
		nums := weft.MakeChan[int](1)
		squares := weft.MakeChan[int](0)
		weft.Go(func() {
			for i := 1; i <= n; i++ {
				if bug && i == n {
					nums.Close()
				}
				nums.Send(i)
			}
			if !bug {
				nums.Close()
			}
		})
		weft.Go(func() {
			for {
				v, ok := nums.Recv()
				if !ok {
					squares.Close()
					return
				}
				squares.Send(v * v)
			}
		})
		sum := 0
		for {
			v, ok := squares.Recv()
			if !ok {
				break
			}
			sum += v
		}
		weft.Assert(sum == n*(n+1)*(2*n+1)/6, "sum of squares %d", sum)
	}
}

// workerPool starts workers that each send a result on a channel, and a
// goroutine that closes the channel once the WaitGroup says they are done;
// bug makes the collector stop after the first result, leaking the other
// workers blocked on the unbuffered results channel.
func workerPool(workers int, bug bool) func() {
	return func() {
		results := weft.MakeChan[int](0)
		var wg sync.WaitGroup
		for j := range workers {
			wg.Go(func() { results.Send(2 * j) })
		}
		weft.Go(func() {
			wg.Wait()
			results.Close()
		})
		got := 0
		for v, ok := results.Recv(); ok; v, ok = results.Recv() {
			got += v
			if bug {
				return
			}
		}
		weft.Assert(got == workers*(workers-1), "results sum %d", got)
	}
}

// semaphore limits a critical section with a buffered channel of capacity
// one; bug releases without acquiring, so two goroutines can be inside.
func semaphore(n int, bug bool) func() {
	return func() {
		sem := weft.MakeChan[struct{}](1)
		var inside weft.Var[int]
		var gs []*weft.Goroutine
		for i := range n {
			gs = append(gs, weft.Go(func() {
				if !bug || i > 0 {
					sem.Send(struct{}{})
				}
				inside.Store(inside.Load() + 1)
				inside.Store(inside.Load() - 1)
				if !bug || i > 0 {
					sem.Recv()
				}
			}))
		}
		for _, g := range gs {
			g.Join()
		}
	}
}

// fanIn merges two producers with a select until both channels are closed
// (a closed channel is set to nil so that select ignores it); bug expects
// one value too many and then selects on two nil channels: a deadlock.
func fanIn(bug bool) func() {
	return func() {
		a, b := weft.MakeChan[int](0), weft.MakeChan[int](0)
		produce := func(c *weft.Chan[int], v int) {
			c.Send(v)
			c.Close()
		}
		weft.Go(func() { produce(a, 1) })
		weft.Go(func() { produce(b, 2) })
		want := 2
		if bug {
			want = 3
		}
		sum, got := 0, 0
		for got < want {
			var v int
			var ok bool
			switch weft.Select(a.RecvCase(&v, &ok), b.RecvCase(&v, &ok)) {
			case 0:
				if !ok {
					a = nil
					continue
				}
			case 1:
				if !ok {
					b = nil
					continue
				}
			}
			sum += v
			got++
		}
		weft.Assert(sum == 3, "sum %d", sum)
	}
}

func TestChannelPrograms(t *testing.T) {
	tests := []struct {
		name  string
		clean func()
		buggy func()
		kind  weft.BugKind
		words string
	}{
		{"pipeline", pipeline(1, false), pipeline(1, true), weft.Panic, "send on closed channel"},
		{"worker pool", workerPool(2, false), workerPool(2, true), weft.GoroutineLeak, "send on a channel"},
		{"semaphore", semaphore(2, false), semaphore(2, true), weft.DataRace, "not ordered by happens-before"},
		{"fan-in", fanIn(false), fanIn(true), weft.Deadlock, "select"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, eng := range []string{"condpor", "dfs"} {
				if eng == "dfs" && tc.name == "worker pool" {
					continue // WaitGroup's interleavings are too many for dfs
				}
				res := explore(t, tc.clean, weft.WithEngine(eng))
				if len(res.Bugs) != 0 || !res.Exhaustive || res.Complete == 0 {
					t.Fatalf("%s, clean: %d complete, bugs %v", eng, res.Complete, res.Bugs)
				}
				res = explore(t, tc.buggy, weft.WithEngine(eng))
				if len(res.Bugs) != 1 || res.Bugs[0].Kind != tc.kind || !strings.Contains(res.Bugs[0].Error(), tc.words) {
					t.Fatalf("%s, buggy: bugs %v, want a %v saying %q", eng, res.Bugs, tc.kind, tc.words)
				}
				again := explore(t, tc.buggy, weft.WithReplay(res.Bugs[0].Replay))
				if again.Executions != 1 || len(again.Bugs) != 1 || again.Bugs[0].Kind != tc.kind {
					t.Fatalf("%s: replay gave %v", eng, again.Bugs)
				}
			}
		})
	}
}

// TestSemaphoreOrders checks that a buffered channel of capacity one used
// as a semaphore by N goroutines gives the N! orders of the critical
// sections.
func TestSemaphoreOrders(t *testing.T) {
	for n := 1; n <= 4; n++ {
		res := explore(t, semaphore(n, false))
		if res.Complete != factorial(n) || res.Blocked != 0 {
			t.Errorf("semaphore(%d): %d complete, %d blocked; want %d, 0", n, res.Complete, res.Blocked, factorial(n))
		}
	}
}

func TestChannelSemantics(t *testing.T) {
	tests := []struct {
		name string
		body func()
		kind weft.BugKind // -1: no bug
	}{
		{"unbuffered rendezvous", func() {
			c := weft.MakeChan[int](0)
			var v weft.Var[int]
			weft.Go(func() { v.Store(1); c.Send(1) })
			c.Recv()
			weft.Assert(v.Load() == 1, "no happens-before from the send")
		}, -1},
		{"receive happens before send completes", func() {
			c := weft.MakeChan[int](0)
			var v weft.Var[int]
			weft.Go(func() { c.Recv(); v.Store(1) })
			c.Send(1)
			v.Load()
		}, weft.DataRace},
		{"unbuffered receive before completion", func() {
			c := weft.MakeChan[int](0)
			var v weft.Var[int]
			g := weft.Go(func() { v.Store(1); c.Recv() })
			c.Send(1)
			v.Load()
			g.Join()
		}, -1},
		{"buffered sends do not synchronize", func() {
			c := weft.MakeChan[int](2)
			var v weft.Var[int]
			g := weft.Go(func() { v.Store(1); c.Send(1) })
			c.Send(2)
			v.Load()
			g.Join()
		}, weft.DataRace},
		{"k-th receive before k+C-th send", func() {
			c := weft.MakeChan[int](1)
			var v weft.Var[int]
			g := weft.Go(func() { c.Recv(); v.Store(1); c.Recv() })
			c.Send(1)
			c.Send(2)
			v.Load()
			g.Join()
		}, weft.DataRace},
		{"fifo", func() {
			c := weft.MakeChan[int](3)
			c.Send(1)
			c.Send(2)
			c.Send(3)
			a, _ := c.Recv()
			b, _ := c.Recv()
			weft.Assert(a == 1 && b == 2 && c.Len() == 1, "got %d %d len %d", a, b, c.Len())
		}, -1},
		{"cap", func() {
			var nilc *weft.Chan[int]
			c := weft.MakeChan[int](3)
			c.Send(1)
			weft.Assert(c.Cap() == 3 && nilc.Cap() == 0 && weft.MakeChan[int](0).Cap() == 0,
				"cap %d, nil %d", c.Cap(), nilc.Cap())
		}, -1},
		{"closed and drained", func() {
			c := weft.MakeChan[string](1)
			c.Send("x")
			c.Close()
			v, ok := c.Recv()
			w, ok2 := c.Recv()
			weft.Assert(v == "x" && ok && w == "" && !ok2, "%q %v %q %v", v, ok, w, ok2)
		}, -1},
		{"send on closed", func() {
			c := weft.MakeChan[int](1)
			c.Close()
			c.Send(1)
		}, weft.Panic},
		{"close of nil", func() {
			var c *weft.Chan[int]
			c.Close()
		}, weft.Panic},
		{"nil channel blocks", func() {
			var c *weft.Chan[int]
			c.Recv()
		}, weft.Deadlock},
		{"blocked sender panics on close", func() {
			c := weft.MakeChan[int](0)
			g := weft.Go(func() { c.Send(1) })
			c.Close()
			g.Join()
		}, weft.Panic},
		{"default only when nothing is ready", func() {
			c := weft.MakeChan[int](1)
			c.Send(1)
			weft.Assert(weft.Select(c.RecvCase(nil, nil), weft.Default()) == 0, "took default with a ready case")
			weft.Assert(weft.Select(c.RecvCase(nil, nil), weft.Default()) == 1, "no default when nothing is ready")
		}, -1},
		{"select rendezvous between selects", func() {
			c := weft.MakeChan[int](0)
			d := weft.MakeChan[int](0)
			g := weft.Go(func() { weft.Select(c.SendCase(1), d.RecvCase(nil, nil)) })
			var v int
			weft.Select(c.RecvCase(&v, nil))
			weft.Assert(v == 1, "v = %d", v)
			g.Join()
		}, -1},
		{"recover from send on closed", func() {
			c := weft.MakeChan[int](1)
			c.Close()
			defer func() { weft.Assert(recover() != nil, "no panic") }()
			c.Send(1)
		}, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, eng := range []string{"condpor", "dfs"} {
				res := explore(t, tc.body, weft.WithEngine(eng))
				if tc.kind < 0 {
					if len(res.Bugs) != 0 {
						t.Errorf("%s: %v", eng, res.Bugs)
					}
					continue
				}
				if len(res.Bugs) != 1 || res.Bugs[0].Kind != tc.kind {
					t.Errorf("%s: bugs %v, want %v", eng, res.Bugs, tc.kind)
				}
			}
		})
	}
}

func BenchmarkPipeline(b *testing.B) {
	execs := 0
	for b.Loop() {
		res, _ := weft.Explore(pipeline(3, false))
		execs += res.Executions
	}
	b.ReportMetric(float64(execs)/b.Elapsed().Seconds(), "executions/s")
}

func BenchmarkWorkerPool(b *testing.B) {
	execs := 0
	for b.Loop() {
		res, _ := weft.Explore(workerPool(2, false))
		execs += res.Executions
	}
	b.ReportMetric(float64(execs)/b.Elapsed().Seconds(), "executions/s")
}

// TestBlockedSendersAllOrders checks that a sender blocked forever on a
// full channel is explored in both orders: with all bugs, each of the two
// goroutines is found leaking, as dfs finds.
func TestBlockedSendersAllOrders(t *testing.T) {
	body := func() {
		c := weft.MakeChan[int](1)
		weft.Go(func() { c.Send(1) })
		weft.Go(func() { c.Send(2) })
	}
	found := map[string]map[string]bool{}
	for _, eng := range []string{"condpor", "dfs"} {
		found[eng] = map[string]bool{}
		for _, b := range explore(t, body, weft.WithEngine(eng), weft.WithAllBugs()).Bugs {
			found[eng][b.Message] = true
		}
	}
	if len(found["dfs"]) != 2 || !maps.Equal(found["condpor"], found["dfs"]) {
		t.Errorf("leaks found: condpor %v, dfs %v", found["condpor"], found["dfs"])
	}
}

// TestIssueReproducers are the programs on which channels were once
// explored unsoundly: a missed leak, a false "nondeterminism", a
// deterministic protocol explored more than once, and the parked sender a
// non-blocking receive never met.
func TestIssueReproducers(t *testing.T) {
	t.Run("leak after stop", func(t *testing.T) {
		body := func() {
			status, stop := weft.MakeChan[int](0), weft.MakeChan[int](0)
			weft.Go(func() {
				for {
					switch weft.Select(status.RecvCase(nil, nil), stop.RecvCase(nil, nil)) {
					case 0:
					case 1:
						return
					}
				}
			})
			weft.Go(func() { status.Send(1) })
			weft.Go(func() { stop.Send(1) })
		}
		for _, eng := range []string{"condpor", "dfs"} {
			res := explore(t, body, weft.WithEngine(eng))
			if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.GoroutineLeak {
				t.Errorf("%s: bugs %v, want the leak of the status sender", eng, res.Bugs)
			}
		}
	})
	t.Run("non-blocking receive meets a parked sender", func(t *testing.T) {
		var took [2]bool
		body := func() {
			c := weft.MakeChan[int](0)
			g := weft.Go(func() { c.Send(1) })
			var v int
			switch weft.Select(c.RecvCase(&v, nil), weft.Default()) {
			case 0:
				weft.Assert(v == 1, "received %d", v)
				took[0] = true
			case 1:
				c.Recv()
				took[1] = true
			}
			g.Join()
		}
		for _, eng := range []string{"condpor", "dfs"} {
			took = [2]bool{}
			res := explore(t, body, weft.WithEngine(eng))
			if len(res.Bugs) != 0 || !took[0] || !took[1] {
				t.Errorf("%s: bugs %v, took the receive %v, the default %v; want both, no bug", eng, res.Bugs, took[0], took[1])
			}
		}
	})
	t.Run("a select sends to a parked receiver", func(t *testing.T) {
		var took [2]bool
		body := func() {
			c := weft.MakeChan[int](0)
			g := weft.Go(func() { c.Recv() })
			switch weft.Select(c.SendCase(1), weft.Default()) {
			case 0:
				took[0] = true
			case 1:
				c.Send(2)
				took[1] = true
			}
			g.Join()
		}
		for _, eng := range []string{"condpor", "dfs"} {
			took = [2]bool{}
			res := explore(t, body, weft.WithEngine(eng))
			if len(res.Bugs) != 0 || !took[0] || !took[1] {
				t.Errorf("%s: bugs %v, took the send %v, the default %v; want both, no bug", eng, res.Bugs, took[0], took[1])
			}
		}
	})
}

// pingPong sends 0..n-1 to a child that echoes v+1 until ping is closed,
// then closes pong; the body checks each echo and the final close.
func pingPong(n int) func() {
	return func() {
		ping, pong := weft.MakeChan[int](0), weft.MakeChan[int](0)
		weft.Go(func() {
			for {
				v, ok := ping.Recv()
				if !ok {
					pong.Close()
					return
				}
				pong.Send(v + 1)
			}
		})
		for i := range n {
			ping.Send(i)
			v, _ := pong.Recv()
			weft.Assert(v == i+1, "echo of %d is %d", i, v)
		}
		ping.Close()
		_, ok := pong.Recv()
		weft.Assert(!ok, "pong not closed")
	}
}

// pipeline3 is a generator, a squaring stage and a summing sink connected
// by channels of capacity c.
func pipeline3(n, c int) func() {
	return func() {
		nums, squares := weft.MakeChan[int](c), weft.MakeChan[int](c)
		weft.Go(func() {
			for i := 1; i <= n; i++ {
				nums.Send(i)
			}
			nums.Close()
		})
		weft.Go(func() {
			for v, ok := nums.Recv(); ok; v, ok = nums.Recv() {
				squares.Send(v * v)
			}
			squares.Close()
		})
		sum := 0
		for v, ok := squares.Recv(); ok; v, ok = squares.Recv() {
			sum += v
		}
		weft.Assert(sum == n*(n+1)*(2*n+1)/6, "sum %d", sum)
	}
}

// fanInSum starts n workers that each send a result on a channel of its
// own, and sums what it receives from each in turn.
func fanInSum(n int) func() {
	return func() {
		var results []*weft.Chan[int]
		for i := range n {
			c := weft.MakeChan[int](0)
			results = append(results, c)
			weft.Go(func() { c.Send(i * i) })
		}
		sum := 0
		for _, c := range results {
			v, _ := c.Recv()
			sum += v
		}
		weft.Assert(sum == (n-1)*n*(2*n-1)/6, "sum %d", sum)
	}
}

// TestDeterministicProtocols checks that a protocol whose every goroutine
// always performs the same operations with the same results is explored
// once: which waiting goroutine arrived first is not part of an execution.
func TestDeterministicProtocols(t *testing.T) {
	tests := []struct {
		name string
		body func()
	}{
		{"ping-pong", pingPong(3)},
		{"pipeline, unbuffered", pipeline3(3, 0)},
		{"pipeline, buffered", pipeline3(3, 2)},
		{"fan-in", fanInSum(3)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := explore(t, tc.body)
			if res.Complete != 1 || res.Blocked != 0 || len(res.Bugs) != 0 {
				t.Errorf("%d complete, %d blocked, bugs %v; want 1 complete", res.Complete, res.Blocked, res.Bugs)
			}
		})
	}
}
