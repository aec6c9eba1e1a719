package weft_test

import (
	goruntime "runtime"
	goatomic "sync/atomic"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/sync"
)

// TestGoexit: runtime.Goexit ends its goroutine as in Go (its deferred calls
// run, Join returns), in a weft goroutine, in the body (as if it returned)
// and in a deferred call, under dfs and condpor, over several executions.
func TestGoexit(t *testing.T) {
	var deferred, after goatomic.Int64 // real counters: effects outside weft
	cases := map[string]struct {
		body     func()
		opts     []weft.Option
		kind     weft.BugKind // -1: no bug
		deferred bool         // every execution ran the counted deferred call
		single   bool         // one execution only
	}{
		"Go(Goexit).Join": {func() {
			weft.Go(func() { goruntime.Goexit() }).Join()
		}, nil, -1, false, true},
		"Goexit after operations": {func() {
			var x atomic.Int32
			g := weft.Go(func() {
				defer x.Add(1)
				defer deferred.Add(1)
				x.Add(1)
				goruntime.Goexit()
				x.Add(100)
			})
			x.Add(1)
			g.Join()
			weft.Assert(x.Load() == 3, "x = %d", x.Load())
		}, nil, -1, true, false},
		"Goexit in the body": {func() {
			var x atomic.Int32
			weft.Go(func() {
				x.Add(1)
				x.Add(1)
				after.Add(1)
			})
			defer deferred.Add(1)
			defer x.Add(1)
			x.Add(1)
			goruntime.Goexit()
		}, nil, -1, true, false},
		"Goexit in the body, a goroutine left blocked": {func() {
			var m sync.Mutex
			m.Lock()
			weft.Go(func() { m.Lock() })
			defer deferred.Add(1)
			goruntime.Goexit()
		}, nil, weft.GoroutineLeak, true, true},
		"Goexit in a deferred call": {func() {
			var x atomic.Int32
			g := weft.Go(func() {
				defer goruntime.Goexit()
				x.Add(1)
			})
			x.Add(1)
			g.Join()
			weft.Assert(x.Load() == 2, "x = %d", x.Load())
		}, nil, -1, false, false},
		"Goexit in a deferred call of a panicking goroutine": {func() {
			var x atomic.Int32
			g := weft.Go(func() {
				defer deferred.Add(1)
				defer func() { goruntime.Goexit() }()
				x.Add(1)
				panic("cancelled by Goexit, as in Go")
			})
			x.Add(1)
			g.Join()
		}, nil, -1, true, false},
		"Goexit in a deferred call while unwinding": {func() {
			var x atomic.Int32
			for range 2 {
				weft.Go(func() {
					defer goruntime.Goexit()
					x.Add(1)
					x.Add(1)
				})
			}
			weft.Assert(x.Load() < 3, "x = %d", x.Load())
		}, []weft.Option{weft.WithAllBugs()}, weft.AssertionFailed, false, false},
		"Goexit, then the execution fails": {func() {
			var x atomic.Int32
			weft.Go(func() {
				x.Add(1)
				goruntime.Goexit()
			})
			x.Add(1)
			weft.Assert(x.Load() != 2, "fails while g1 may wait in its end")
		}, []weft.Option{weft.WithAllBugs()}, weft.AssertionFailed, false, false},
		"Goexit before the first operation": {func() {
			var x atomic.Int32
			for range 3 {
				weft.Go(func() {
					if x.Load() == 0 {
						goruntime.Goexit()
					}
					x.Add(1)
				})
			}
			x.Add(1)
		}, nil, -1, false, false},
	}
	for name, c := range cases {
		for _, eng := range robustEngines {
			t.Run(name+"/"+eng, func(t *testing.T) {
				deferred.Store(0)
				after.Store(0)
				res, _ := exploreWithin(t, c.body, append([]weft.Option{weft.WithEngine(eng)}, c.opts...)...)
				if c.kind < 0 {
					if len(res.Bugs) != 0 || !res.Exhaustive {
						t.Fatalf("bugs %v, exhaustive %v", res.Bugs, res.Exhaustive)
					}
				} else if len(res.Bugs) == 0 || res.Bugs[0].Kind != c.kind {
					t.Fatalf("bugs %v, want %v", res.Bugs, c.kind)
				}
				if res.Complete+res.Blocked != res.Executions || res.Executions == 0 {
					t.Errorf("statistics do not add up: %+v", res)
				}
				if !c.single && res.Executions < 2 {
					t.Errorf("only %d executions", res.Executions)
				}
				// The replays of the bugs' reports run the body again.
				if c.deferred && deferred.Load() < int64(res.Executions) {
					t.Errorf("the deferred call ran %d times in %d executions", deferred.Load(), res.Executions)
				}
				if name == "Goexit in the body" && after.Load() != int64(res.Executions) {
					t.Errorf("the other goroutine ended %d times in %d executions", after.Load(), res.Executions)
				}
			})
		}
	}
}
