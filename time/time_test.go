package time_test

import (
	"strings"
	"testing"
	stdtime "time"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/context"
	"weft.dev/weft/internal/timeprog"
	"weft.dev/weft/time"
)

// explore runs body with engine and fails t on an error.
func explore(t *testing.T, body func(), engine string, opts ...weft.Option) weft.Result {
	t.Helper()
	res, err := weft.Explore(body, append(opts, weft.WithEngine(engine))...)
	if err != nil {
		t.Fatalf("%s: %v", engine, err)
	}
	return res
}

// compare checks that condpor explores each class of complete executions
// of dfs exactly once and finds the same bug kinds, and that condpor's
// complete executions are want.
func compare(t *testing.T, body func(), want int) {
	t.Helper()
	c, err := timeprog.Compare(body, 300_000)
	if err != nil {
		t.Fatal(err)
	}
	if !c.DFS.Exhaustive {
		t.Fatalf("dfs is not exhaustive in %d executions", c.DFS.Executions)
	}
	for _, p := range c.Problems() {
		t.Error(p)
	}
	if c.CondPOR.Complete != want {
		t.Errorf("condpor explores %d complete executions (dfs: %d executions, %d classes), want %d", c.CondPOR.Complete, c.DFS.Executions, len(c.DFS.Classes), want)
	}
}

func TestOneExecutionWithoutRaces(t *testing.T) {
	tests := []struct {
		name string
		body func()
	}{
		{"timer", func() {
			tm := time.NewTimer(time.Second)
			v, _ := tm.C.Recv()
			weft.Assert(v.Equal(time.Now()), "received %v at %v", v, time.Now())
		}},
		{"sleeps", func() {
			start := time.Now()
			time.Sleep(time.Second)
			time.Sleep(2 * time.Second)
			weft.Assert(time.Since(start) == 3*time.Second, "slept %v", time.Since(start))
		}},
		{"after func", func() {
			done := weft.MakeChan[struct{}](0)
			time.AfterFunc(time.Second, func() { done.Close() })
			done.Recv()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := explore(t, tt.body, "condpor")
			if len(res.Bugs) > 0 || res.Executions != 1 {
				t.Errorf("%d executions, bugs %v; want 1 execution without a bug", res.Executions, res.Bugs)
			}
		})
	}
}

func TestTimeoutRacesReply(t *testing.T) {
	for _, capacity := range []int{0, 1} {
		// With a buffer, the sender never blocks: the timeout is still
		// explored, since a real sender may be slow.
		for _, engine := range []string{"condpor", "dfs"} {
			outcomes := map[string]bool{}
			res := explore(t, func() {
				reply := weft.MakeChan[int](capacity)
				weft.Go(func() { reply.Send(1) })
				var v int
				switch weft.Select(reply.RecvCase(&v, nil), time.After(time.Second).RecvCase(nil, nil)) {
				case 0:
					outcomes["reply"] = true
				case 1:
					outcomes["timeout"] = true
				}
			}, engine, weft.WithAllBugs(), weft.WithWorkers(1)) // the body records its outcomes in a map
			if !outcomes["reply"] || !outcomes["timeout"] {
				t.Errorf("capacity %d, %s: outcomes %v, want both", capacity, engine, outcomes)
			}
			if capacity == 0 && (len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.GoroutineLeak) {
				t.Errorf("capacity 0, %s: bugs %v, want the sender's leak", engine, res.Bugs)
			}
			if capacity == 1 && len(res.Bugs) != 0 {
				t.Errorf("capacity 1, %s: bugs %v, want none", engine, res.Bugs)
			}
		}
	}
}

func TestAfterLeak(t *testing.T) {
	// The classic leak: the caller gives up after a second, and the worker
	// then blocks forever on its unbuffered reply.
	res := explore(t, func() {
		reply := weft.MakeChan[int](0)
		weft.Go(func() {
			time.Sleep(2 * time.Second)
			reply.Send(42)
		})
		weft.Select(reply.RecvCase(nil, nil), time.After(time.Second).RecvCase(nil, nil))
	}, "condpor")
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.GoroutineLeak {
		t.Fatalf("bugs %v, want a goroutine leak", res.Bugs)
	}
	trace := res.Bugs[0].Error()
	for _, want := range []string{"timer#1 fires at +1s", "timer#2 fires at +2s", "timer#2 ends its Sleep", "send on chan#1"} {
		if !strings.Contains(trace, want) {
			t.Errorf("the report does not show %q:\n%s", want, trace)
		}
	}
}

func TestCountsAgainstDFS(t *testing.T) {
	tests := []struct {
		name string
		body func()
		want int // condpor's complete executions: dfs's classes
	}{
		// The 1 s timer fires before the 2 s one when both are set; the
		// 2 s one may fire before the other is set, which is then due at
		// +3 s.
		{"two sleepers", func() {
			a := weft.Go(func() { time.Sleep(2 * time.Second) })
			time.Sleep(time.Second)
			a.Join()
		}, 4},
		// The timer fires before Stop (which drops its value) or not.
		{"stop", func() {
			tm := time.NewTimer(time.Second)
			weft.Assert(tm.Stop(), "Stop of a timer whose value was not received")
		}, 2},
		{"timeout", func() {
			reply := weft.MakeChan[int](1)
			weft.Go(func() { reply.Send(1) })
			weft.Select(reply.RecvCase(nil, nil), time.After(time.Second).RecvCase(nil, nil))
		}, 2},
		// Either goroutine sets the first timer and starts the clock:
		// its id depends on the order in which an engine meets the
		// executions, and the classes must not (this one failed when
		// class hashes named goroutines by id).
		{"clock started by either", func() {
			var x atomic.Int32
			a := weft.Go(func() {
				x.Store(1)
				time.Sleep(2 * time.Second)
			})
			x.Load()
			time.Sleep(time.Second)
			a.Join()
		}, 8},
		// TestTickerUntilCancel with a channel that the goroutine closes
		// for the context: dfs exhausts it (the context's mutex makes
		// it too many interleavings), and the count is that program's.
		{"ticker until close", func() {
			done := weft.MakeChan[struct{}](0)
			tk := time.NewTicker(time.Second)
			weft.Go(done.Close)
			for weft.Select(tk.C.RecvCase(nil, nil), done.RecvCase(nil, nil)) == 0 {
			}
			tk.Stop()
		}, 15},
		// A worker that sleeps between two steps, and a caller that
		// reads its progress after sleeping longer: the worker may not
		// even have started (it may be slow), never be past its sleep.
		{"worker sleeps", func() {
			tm := time.NewTimer(1500 * time.Millisecond)
			var step atomic.Int32
			w := weft.Go(func() {
				step.Store(1)
				time.Sleep(time.Second)
				step.Store(2)
			})
			tm.C.Recv()
			s := step.Load()
			weft.Assert(s <= 2, "step %d", s)
			w.Join()
		}, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { compare(t, tt.body, tt.want) })
	}
}

// TestTickerUntilCancel counts the executions of a ticker loop that a
// cancel stops: the ticks before the cancel (at most MaxTicks), each
// received or dropped. dfs cannot exhaust it (it explores every
// interleaving of the clock's and the context's operations), so the count
// is condpor's alone: TestCountsAgainstDFS's "ticker until close" is this
// loop with a closed channel for the context, whose 15 classes dfs counts.
func TestTickerUntilCancel(t *testing.T) {
	res := explore(t, func() {
		ctx, cancel := context.WithCancel(context.Background())
		tk := time.NewTicker(time.Second)
		weft.Go(cancel)
		for weft.Select(tk.C.RecvCase(nil, nil), ctx.Done().RecvCase(nil, nil)) == 0 {
		}
		tk.Stop()
	}, "condpor")
	if len(res.Bugs) > 0 || res.Complete != 15 || !res.Exhaustive {
		t.Errorf("%d complete executions (exhaustive: %v), bugs %v; want 15, none", res.Complete, res.Exhaustive, res.Bugs)
	}
}

func TestStoppedTimerDeadlock(t *testing.T) {
	res := explore(t, func() {
		tm := time.NewTimer(time.Second)
		tm.Stop()
		tm.C.Recv()
	}, "condpor")
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.Deadlock {
		t.Fatalf("bugs %v, want a deadlock", res.Bugs)
	}
}

func TestTickerNeverStopped(t *testing.T) {
	// A goroutine that ranges over a ticker never stopped outlives the
	// body: a leak. A ticker never stopped whose ticks no one waits for is
	// no bug (Go 1.23 collects it).
	res := explore(t, func() {
		tk := time.NewTicker(time.Second)
		weft.Go(func() {
			for {
				tk.C.Recv()
			}
		})
	}, "condpor")
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.GoroutineLeak || !strings.Contains(res.Bugs[0].Message, "ticker#1") {
		t.Fatalf("bugs %v, want the leak of the goroutine on ticker#1", res.Bugs)
	}
	res = explore(t, func() {
		tk := time.NewTicker(time.Second)
		tk.C.Recv()
	}, "condpor")
	if len(res.Bugs) > 0 {
		t.Fatalf("bugs %v, want none", res.Bugs)
	}
}

func TestAfterFuncRace(t *testing.T) {
	// Resetting a timer whose function already started runs it twice:
	// the two runs race on the Var they write.
	res := explore(t, func() {
		var hits weft.Var[int]
		tm := time.AfterFunc(time.Second, func() { hits.Store(hits.Load() + 1) })
		time.Sleep(2 * time.Second)
		tm.Reset(time.Second)
	}, "condpor")
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.DataRace {
		t.Fatalf("bugs %v, want a data race", res.Bugs)
	}
	if trace := res.Bugs[0].Error(); !strings.Contains(trace, "runs its func on a new goroutine") {
		t.Errorf("the trace does not show the timer starting its func:\n%s", trace)
	}
}

// TestClockHasNoStepLimit checks that the clock, which fires the timers
// the program's goroutines set, is not held to the step limit of one
// goroutine: x/sync's TestGoLimit sleeps in 1,025 goroutines, and the
// clock's firings were reported as "an infinite loop or a livelock".
func TestClockHasNoStepLimit(t *testing.T) {
	res := explore(t, func() {
		for range 30 {
			weft.Go(func() { time.Sleep(time.Millisecond) })
		}
	}, "condpor", weft.WithMaxSteps(40), weft.WithMaxExecutions(1))
	if len(res.Bugs) > 0 {
		t.Errorf("30 sleeps with a step limit of 40: %s: %s", res.Bugs[0].Kind, res.Bugs[0].Message)
	}
}

// start is time.Now at package initialization, outside any check.
var start = time.Now()

// TestNowOutside: outside any check (a package variable of x/time's tests,
// var t0 = time.Now()), Now is the time at which every execution's clock
// starts.
func TestNowOutside(t *testing.T) {
	want := stdtime.Date(2000, stdtime.January, 1, 0, 0, 0, 0, stdtime.UTC)
	if !start.Equal(want) || !time.Now().Equal(want) {
		t.Errorf("Now outside a check: %v at initialization, %v in the test; want %v", start, time.Now(), want)
	}
	explore(t, func() {
		weft.Assert(time.Now().Equal(start), "Now at the start of an execution is %v, want %v", time.Now(), start)
		time.Sleep(time.Second)
		weft.Assert(time.Since(start) >= time.Second, "a second later, Since(start) = %v", time.Since(start))
	}, "condpor")
}
