package weft_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/internal/progtest"
	"weft.dev/weft/sync"
)

func explore(t *testing.T, body func(), opts ...weft.Option) weft.Result {
	t.Helper()
	res, err := weft.Explore(body, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func binomial(n, k int) int {
	r := 1
	for i := 1; i <= k; i++ {
		r = r * (n - k + i) / i
	}
	return r
}

// TestDFSInterleavings checks that dfs explores each interleaving of two
// goroutines' independent operations exactly once: C(a+b, a) of them, where
// the spawned goroutine's return counts as one of its operations.
func TestDFSInterleavings(t *testing.T) {
	for _, tc := range [][2]int{{0, 0}, {1, 1}, {2, 2}, {3, 1}, {4, 3}, {5, 5}} {
		a, b := tc[0], tc[1]
		t.Run(fmt.Sprintf("%d,%d", a, b), func(t *testing.T) {
			res := explore(t, func() {
				var x, y atomic.Int32
				g := weft.Go(func() {
					for range a {
						x.Add(1)
					}
				})
				for range b {
					y.Add(1)
				}
				g.Join()
			}, weft.WithEngine("dfs"))
			want := binomial(a+1+b, b)
			if res.Executions != want || res.Complete != want || !res.Exhaustive || len(res.Bugs) != 0 {
				t.Errorf("got %d executions (%d complete, exhaustive %v, %d bugs), want %d complete", res.Executions, res.Complete, res.Exhaustive, len(res.Bugs), want)
			}
		})
	}
}

// outcomes runs a racy program and returns the sequence of final values the
// executions observed.
func outcomes(t *testing.T, opts ...weft.Option) []int32 {
	var seen []int32
	explore(t, func() {
		var x atomic.Int32
		gs := []*weft.Goroutine{
			weft.Go(func() { x.Store(1) }),
			weft.Go(func() { x.Store(2) }),
			weft.Go(func() { x.Store(3) }),
		}
		for _, g := range gs {
			g.Join()
		}
		seen = append(seen, x.Load())
	}, opts...)
	return seen
}

func TestRandomSameSeed(t *testing.T) {
	// One worker: outcomes records the executions in their order.
	a := outcomes(t, weft.WithEngine("random"), weft.WithSeed(7), weft.WithMaxExecutions(200), weft.WithWorkers(1))
	b := outcomes(t, weft.WithEngine("random"), weft.WithSeed(7), weft.WithMaxExecutions(200), weft.WithWorkers(1))
	c := outcomes(t, weft.WithEngine("random"), weft.WithSeed(8), weft.WithMaxExecutions(200), weft.WithWorkers(1))
	if len(a) != 200 {
		t.Fatalf("random ran %d executions, want 200", len(a))
	}
	if !slices.Equal(a, b) {
		t.Errorf("same seed, different executions:\n%v\n%v", a, b)
	}
	if slices.Equal(a, c) {
		t.Errorf("seeds 7 and 8 gave the same 200 executions")
	}
	for _, v := range []int32{1, 2, 3} {
		if !slices.Contains(a, v) {
			t.Errorf("200 random executions never ended with x = %d", v)
		}
	}
}

// runs counts the executions of the nondeterministic program.
var runs int

// bugPrograms has, for every kind of bug, a program with that bug and a
// close program without it.
var bugPrograms = []struct {
	kind         weft.BugKind
	buggy, clean func()
}{
	{weft.AssertionFailed,
		func() {
			var x atomic.Int32
			g := weft.Go(func() { x.Store(x.Load() + 1) })
			x.Store(x.Load() + 1)
			g.Join()
			weft.Assert(x.Load() == 2, "lost update: x = %d", x.Load())
		},
		func() {
			var x atomic.Int32
			g := weft.Go(func() { x.Add(1) })
			x.Add(1)
			g.Join()
			weft.Assert(x.Load() == 2, "lost update: x = %d", x.Load())
		}},
	{weft.Panic,
		func() {
			var x atomic.Int32
			g := weft.Go(func() { x.Store(1) })
			if x.Load() == 1 {
				var m map[int]int
				m[0] = 1
			}
			g.Join()
		},
		func() {
			var x atomic.Int32
			g := weft.Go(func() { x.Store(1) })
			if x.Load() == 1 {
				m := map[int]int{}
				m[0] = 1
			}
			g.Join()
		}},
	{weft.Deadlock,
		func() {
			var a, b sync.Mutex
			g := weft.Go(func() { a.Lock(); b.Lock(); b.Unlock(); a.Unlock() })
			b.Lock()
			a.Lock()
			a.Unlock()
			b.Unlock()
			g.Join()
		},
		func() {
			var a, b sync.Mutex
			g := weft.Go(func() { a.Lock(); b.Lock(); b.Unlock(); a.Unlock() })
			a.Lock()
			b.Lock()
			b.Unlock()
			a.Unlock()
			g.Join()
		}},
	{weft.DataRace,
		func() {
			var v weft.Var[int]
			g := weft.Go(func() { v.Store(1) })
			_ = v.Load()
			g.Join()
		},
		func() {
			var v weft.Var[int]
			var m sync.Mutex
			g := weft.Go(func() { m.Lock(); v.Store(1); m.Unlock() })
			m.Lock()
			_ = v.Load()
			m.Unlock()
			g.Join()
		}},
	{weft.StepLimit,
		func() {
			var stop atomic.Bool
			for !stop.Load() {
			}
		},
		func() {
			var stop atomic.Bool
			weft.Go(func() { stop.Store(true) })
			for i := 0; i < 10 && !stop.Load(); i++ {
			}
		}},
	{weft.GoroutineLeak,
		func() {
			var m sync.Mutex
			m.Lock()
			weft.Go(func() { m.Lock() })
		},
		func() {
			var m sync.Mutex
			m.Lock()
			weft.Go(func() { m.Lock() })
			m.Unlock()
		}},
	{weft.Nondeterminism,
		func() {
			// State outside the body makes every execution different, as
			// time or math/rand would.
			runs++
			var x atomic.Int32
			weft.Go(func() { x.Store(1) })
			if runs%2 == 0 {
				x.Load()
			} else {
				x.Add(1)
			}
		},
		func() {
			var x, y atomic.Int32
			order := []*atomic.Int32{&x, &y, &x, &y}
			weft.Go(func() { x.Store(1) })
			for _, a := range order {
				a.Load()
			}
		}},
	{weft.Misuse,
		func() {
			var wg sync.WaitGroup
			wg.Add(1)
			wg.Done()
			wg.Done()
		},
		func() {
			var wg sync.WaitGroup
			wg.Add(1)
			wg.Done()
		}},
}

func TestBugKinds(t *testing.T) {
	for _, p := range bugPrograms {
		t.Run(p.kind.String(), func(t *testing.T) {
			res := explore(t, p.buggy, weft.WithMaxSteps(1000))
			if len(res.Bugs) != 1 || res.Bugs[0].Kind != p.kind {
				t.Fatalf("buggy program: got bugs %v, want one %v", res.Bugs, p.kind)
			}
			b := res.Bugs[0]
			if b.Message == "" || b.Replay == "" || !strings.Contains(b.Error(), b.Kind.String()) {
				t.Errorf("incomplete bug report: %q", b.Error())
			}
			if p.kind != weft.Nondeterminism && len(b.Trace.Steps) == 0 && p.kind != weft.Misuse {
				t.Errorf("the report has no trace:\n%v", b)
			}
			clean := explore(t, p.clean, weft.WithMaxSteps(1000))
			if len(clean.Bugs) != 0 || !clean.Exhaustive {
				t.Errorf("clean program: got bugs %v (exhaustive %v)", clean.Bugs, clean.Exhaustive)
			}
		})
	}
}

func TestAssumeBlocksOnlyItsGoroutine(t *testing.T) {
	// The body blocks on Assume; the goroutine it started still reaches its
	// bug, and executions that end with the Assume blocked are Blocked, not
	// deadlocks or leaks.
	res := explore(t, func() {
		var x, y atomic.Int32
		weft.Go(func() {
			x.Store(1)
			weft.Assert(y.Load() == 0, "reached")
		})
		weft.Assume(x.Load() == 1)
		y.Store(1)
	}, weft.WithAllBugs())
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.AssertionFailed {
		t.Fatalf("got bugs %v, want the assertion", res.Bugs)
	}
	res = explore(t, func() {
		var m sync.Mutex
		m.Lock()
		weft.Go(func() { m.Lock() })
		weft.Assume(false)
	})
	if len(res.Bugs) != 0 || res.Blocked == 0 || res.Blocked != res.Executions {
		t.Errorf("got %d bugs, %d blocked of %d executions; want every execution blocked, no bug", len(res.Bugs), res.Blocked, res.Executions)
	}
}

func TestReplay(t *testing.T) {
	res := explore(t, bugPrograms[0].buggy)
	if len(res.Bugs) != 1 {
		t.Fatalf("want a bug, got %v", res.Bugs)
	}
	tok := res.Bugs[0].Replay
	again := explore(t, bugPrograms[0].buggy, weft.WithReplay(tok))
	if again.Executions != 1 || len(again.Bugs) != 1 || again.Bugs[0].Kind != weft.AssertionFailed || again.Bugs[0].Message != res.Bugs[0].Message {
		t.Errorf("replay ran %d executions with bugs %v; want exactly the same bug", again.Executions, again.Bugs)
	}
	if got, want := again.Bugs[0].Trace.Steps, res.Bugs[0].Trace.Steps; !slices.Equal(got, want) {
		t.Errorf("replayed trace differs:\n%v\n%v", got, want)
	}
	t.Setenv("WEFT_REPLAY", tok)
	env := explore(t, bugPrograms[0].buggy)
	if env.Executions != 1 || len(env.Bugs) != 1 {
		t.Errorf("WEFT_REPLAY: %d executions, bugs %v", env.Executions, env.Bugs)
	}
	if _, err := weft.Explore(bugPrograms[1].buggy); err == nil || !strings.Contains(err.Error(), "different program") {
		t.Errorf("token of another program: err = %v", err)
	}
	t.Setenv("WEFT_REPLAY", tok[:len(tok)-4])
	if _, err := weft.Explore(bugPrograms[0].buggy); err == nil || !strings.Contains(err.Error(), "corrupted") {
		t.Errorf("corrupted token: err = %v", err)
	}
}

// fakeT records what Check reports.
type fakeT struct {
	testing.TB
	errors []string
	fatal  string
}

func (f *fakeT) Helper()      {}
func (f *fakeT) Name() string { return "TestFake/sub.case" }
func (f *fakeT) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
func (f *fakeT) Fatal(args ...any) { f.fatal = fmt.Sprint(args...) }

func TestCheck(t *testing.T) {
	ft := &fakeT{TB: t}
	res := weft.Check(ft, bugPrograms[0].buggy)
	if len(res.Bugs) != 1 || len(ft.errors) != 1 {
		t.Fatalf("Check reported %d errors for %d bugs", len(ft.errors), len(res.Bugs))
	}
	msg := ft.errors[0]
	for _, want := range []string{"assertion failed", "lost update", "WEFT_REPLAY=" + res.Bugs[0].Replay, "go test -run '^TestFake$/^sub\\.case$' weft.dev/weft", "weft_test.go:"} {
		if !strings.Contains(msg, want) {
			t.Errorf("report lacks %q:\n%s", want, msg)
		}
	}
	ft = &fakeT{TB: t}
	weft.Check(ft, func() {}, weft.WithEngine("nope"))
	if !strings.Contains(ft.fatal, `unknown engine "nope"`) {
		t.Errorf("bad engine: fatal = %q", ft.fatal)
	}
	ft = &fakeT{TB: t}
	weft.Check(ft, bugPrograms[0].clean)
	if len(ft.errors) != 0 || ft.fatal != "" {
		t.Errorf("clean program reported %v %q", ft.errors, ft.fatal)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		env, val, want string
	}{
		{"WEFT_MAX_EXECUTIONS", "ten", "WEFT_MAX_EXECUTIONS"},
		{"WEFT_TIMEOUT", "soon", "WEFT_TIMEOUT"},
		{"WEFT_SEED", "-1", "WEFT_SEED"},
		{"WEFT_ENGINE", "quantum", "unknown engine"},
		{"WEFT_ENGINE", "qpor:k=0", "at least 1"},
		{"WEFT_ENGINE", "qpor:k=two", "want a whole number"},
		{"WEFT_ENGINE", "qpor:j=2", `unknown key "j"`},
		{"WEFT_ENGINE", "qpor:k", "want key=value"},
		{"WEFT_ENGINE", "dfs:k=2", "dfs takes no options"},
		{"WEFT_PROGRESS", "maybe", "WEFT_PROGRESS"},
		{"WEFT_WORKERS", "-2", "WEFT_WORKERS"},
		{"WEFT_SHARD", "2/2", "WEFT_SHARD"},
		{"WEFT_SHARD", "1", "WEFT_SHARD"},
	} {
		t.Run(tc.env, func(t *testing.T) {
			t.Setenv(tc.env, tc.val)
			if _, err := weft.Explore(func() {}); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s=%s: err = %v", tc.env, tc.val, err)
			}
		})
	}
	if _, err := weft.Explore(func() {}, weft.WithMaxExecutions(-1)); err == nil {
		t.Error("negative WithMaxExecutions accepted")
	}
	if _, err := weft.Explore(func() {}, weft.WithShard(-1, 2)); err == nil {
		t.Error("WithShard(-1, 2) accepted")
	}
	if _, err := weft.Explore(nil); err == nil {
		t.Error("nil body accepted")
	}
}

func TestEnvOverridesOptions(t *testing.T) {
	t.Setenv("WEFT_MAX_EXECUTIONS", "3")
	res := explore(t, bugPrograms[0].clean, weft.WithMaxExecutions(100), weft.WithEngine("dfs"))
	if res.Executions != 3 || res.Exhaustive {
		t.Errorf("WEFT_MAX_EXECUTIONS=3: %d executions, exhaustive %v", res.Executions, res.Exhaustive)
	}
	t.Setenv("WEFT_MAX_EXECUTIONS", "")
	t.Setenv("WEFT_ENGINE", "random")
	res = explore(t, bugPrograms[0].clean)
	if res.Engine != "random" || res.Executions != 1000 || res.Exhaustive {
		t.Errorf("WEFT_ENGINE=random: engine %s, %d executions", res.Engine, res.Executions)
	}
}

func TestTimeout(t *testing.T) {
	res := explore(t, func() {
		var x atomic.Int32
		for range 4 {
			weft.Go(func() {
				for range 4 {
					x.Add(1)
				}
			})
		}
	}, weft.WithTimeout(50*time.Millisecond))
	if res.Exhaustive || res.Elapsed > 5*time.Second {
		t.Errorf("timeout: exhaustive %v after %v", res.Exhaustive, res.Elapsed)
	}
}

func TestProgress(t *testing.T) {
	var b strings.Builder
	explore(t, func() {
		var x atomic.Int32
		for range 3 {
			weft.Go(func() {
				for range 3 {
					x.Add(1)
				}
			})
		}
	}, weft.WithProgress(&b), weft.WithTimeout(700*time.Millisecond), weft.WithEngine("dfs"))
	if !strings.Contains(b.String(), "executions") {
		t.Errorf("no progress line in %q", b.String())
	}
}

// TestOutsideCheck checks what weft's API does outside any check: what
// code that weft test rewrote needs at package initialization and in
// TestMain works as plain Go (Go, a Mutex, a channel made there and used
// in checks; see sync's and atomic's tests for the rest), and what has no
// meaning there panics, or, in a goroutine that weft.Go started there,
// waits for good.
func TestOutsideCheck(t *testing.T) {
	done := make(chan bool)
	weft.Go(func() { close(done) })
	<-done
	var m sync.Mutex
	m.Lock()
	m.Unlock()
	for name, f := range map[string]func(){
		"Assert": func() { weft.Assert(true, "") },
		"Var":    func() { var v weft.Var[int]; v.Load() },
		"Atomic": func() { var x atomic.Int64; x.Add(1) },
		"Send":   func() { weft.MakeChan[int](1).Send(1) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "outside a running check") {
					t.Errorf("recovered %v, want a panic saying the call is outside a check", r)
				}
			}()
			f()
		})
	}
	// A goroutine that weft.Go started outside any check, and that does
	// what only a check can run, waits for good: its panic ended the test
	// binary.
	started, after := make(chan bool), make(chan bool)
	weft.Go(func() {
		close(started)
		weft.MakeChan[int](1).Send(1)
		close(after)
	})
	<-started
	select {
	case <-after:
		t.Error("a goroutine started outside any check sent on a channel of weft's")
	case <-time.After(50 * time.Millisecond):
	}
}

// global is created outside the body: every execution sees it reset.
var global atomic.Int32

func TestObjectsOutsideBodyAreReset(t *testing.T) {
	res := explore(t, func() {
		weft.Assert(global.Load() == 0, "global kept %d from a previous execution", global.Load())
		g := weft.Go(func() { global.Add(1) })
		global.Add(1)
		g.Join()
	})
	if len(res.Bugs) != 0 || res.Executions < 2 {
		t.Errorf("%d executions, bugs %v", res.Executions, res.Bugs)
	}
}

func TestGoexitEndsOnlyItsGoroutine(t *testing.T) {
	res := explore(t, func() {
		var x atomic.Int32
		g := weft.Go(func() {
			defer x.Add(1)
			x.Add(1)
			goruntime.Goexit()
		})
		g.Join()
		weft.Assert(x.Load() == 2, "x = %d", x.Load())
	})
	if len(res.Bugs) != 0 || !res.Exhaustive || res.Complete == 0 {
		t.Errorf("Goexit: %+v", res)
	}
}

func TestRecoveredPanicIsNotABug(t *testing.T) {
	res := explore(t, func() {
		var x atomic.Value
		x.Store(1)
		defer func() {
			if recover() == nil {
				weft.Assert(false, "no panic")
			}
		}()
		x.Store("a string")
	})
	if len(res.Bugs) != 0 {
		t.Errorf("bugs: %v", res.Bugs)
	}
}

// TestAbortLeavesNothing runs 10,000 executions that are all cut short and
// checks that no goroutine survives them.
func TestAbortLeavesNothing(t *testing.T) {
	before := goruntime.NumGoroutine()
	cutShort := map[string]struct {
		body func()
		opts []weft.Option
	}{
		"blocked": {func() {
			var x atomic.Int32
			var m sync.Mutex
			for range 3 {
				weft.Go(func() {
					x.Add(1)
					m.Lock()
					defer m.Unlock()
					x.Add(1)
					weft.Assume(x.Load() > 5)
				})
			}
			x.Add(1)
			weft.Assume(false)
		}, []weft.Option{weft.WithMaxExecutions(4000)}},
		"bugs": {func() {
			var x atomic.Int32
			for range 3 {
				weft.Go(func() {
					defer x.Add(1)
					x.Add(1)
					x.Add(1)
				})
			}
			x.Add(1)
			weft.Assert(x.Load() > 100, "x = %d", x.Load())
		}, []weft.Option{weft.WithAllBugs(), weft.WithMaxExecutions(3000)}},
		"steps": {func() {
			var x atomic.Int32
			for range 3 {
				weft.Go(func() {
					for {
						x.Add(1)
					}
				})
			}
			x.Load()
		}, []weft.Option{weft.WithAllBugs(), weft.WithMaxSteps(3), weft.WithMaxExecutions(3000)}},
	}
	total := 0
	for name, c := range cutShort {
		explore(t, c.body, c.opts...) // condpor
		res := explore(t, c.body, append(c.opts, weft.WithEngine("dfs"))...)
		if res.Complete+res.Blocked != res.Executions {
			t.Errorf("%s: %d complete + %d blocked != %d executions", name, res.Complete, res.Blocked, res.Executions)
		}
		total += res.Executions
	}
	if total < 10_000 {
		t.Fatalf("only %d executions", total)
	}
	deadline := time.Now().Add(2 * time.Second)
	for goruntime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := goruntime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines before, %d after:\n%s", before, n, buf[:goruntime.Stack(buf, true)])
	}
}

// FuzzPrograms runs random small programs under every engine: the checker
// must neither crash nor hang, and its statistics must add up.
func FuzzPrograms(f *testing.F) {
	f.Add([]byte{2, 0x01, 0x10, 0x12, 0x01, 0xff, 0, 0x14, 0x02, 0x15, 0x00})
	f.Add([]byte{3, 0x04, 0x00, 0x03, 0x21, 0x05, 0x00, 0xff, 0, 0x08, 0x01, 0x09, 0x02})
	f.Add([]byte{1, 0x06, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		p := progtest.FromBytes(data)
		for _, eng := range []string{"dfs", "random", "sdpor", "mpor", "qpor"} {
			res, err := weft.Explore(p.Body(), weft.WithEngine(eng), weft.WithMaxExecutions(2000), weft.WithMaxSteps(200))
			if err != nil {
				t.Fatalf("%s on\n%v: %v", eng, p, err)
			}
			if res.Complete+res.Blocked != res.Executions || res.Executions == 0 {
				t.Fatalf("%s on\n%v: %+v", eng, p, res)
			}
			for _, b := range res.Bugs {
				if b.Replay == "" || b.Kind == weft.Nondeterminism {
					t.Fatalf("%s on\n%v: bad bug %v", eng, p, b)
				}
			}
		}
	})
}

// TestRandomPrograms is the fuzz target's property on generated programs,
// so that every test run exercises it.
func TestRandomPrograms(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 150 {
		p := progtest.Generate(rng, progtest.Config{Goroutines: [2]int{1, 3}, Ops: [2]int{1, 3}, Locs: 2, LockedRatio: 0.3,
			Kinds: []progtest.OpKind{progtest.Load, progtest.Store, progtest.Add, progtest.CAS, progtest.Assume, progtest.Assert, progtest.VarLoad, progtest.VarStore}})
		res, err := weft.Explore(p.Body(), weft.WithMaxExecutions(5000))
		if err != nil {
			t.Fatal(err)
		}
		if res.Complete+res.Blocked != res.Executions {
			t.Fatalf("%v: %+v", p, res)
		}
		for _, b := range res.Bugs {
			if b.Kind == weft.Nondeterminism {
				t.Fatalf("%v: %v", p, b)
			}
			again, err := weft.Explore(p.Body(), weft.WithReplay(b.Replay))
			if err != nil || len(again.Bugs) != 1 || again.Bugs[0].Kind != b.Kind {
				t.Fatalf("%v: replay of %v gave %v, %v", p, b, again.Bugs, err)
			}
		}
	}
}

func TestMain(m *testing.M) {
	if os.Getenv("WEFT_REPLAY") != "" {
		fmt.Fprintln(os.Stderr, "weft tests: unset WEFT_REPLAY")
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// TestEscapedGoroutines checks what a deadlock that goroutines outside the
// checker may be part of says: the stray's misuse when it calls a weft
// operation after every modelled goroutine blocked (a goroutine that an
// unrewritten dependency started runs the program's function), and a
// note naming them when they call none.
func TestEscapedGoroutines(t *testing.T) {
	res := explore(t, func() {
		c := weft.MakeChan[int](0)
		go func() {
			time.Sleep(time.Millisecond)
			c.Send(1)
		}()
		c.Recv()
	})
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.Misuse || !strings.Contains(res.Bugs[0].Message, "started by weft.dev/weft_test.TestEscapedGoroutines") {
		t.Fatalf("a late stray call: bugs %v", res.Bugs)
	}
	release := make(chan bool)
	defer close(release)
	res = explore(t, func() {
		go func() { <-release }()
		weft.MakeChan[int](0).Recv()
	})
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.Deadlock || !strings.Contains(res.Bugs[0].Message, "a goroutine that weft does not run, started by weft.dev/weft_test.TestEscapedGoroutines") {
		t.Fatalf("a goroutine that calls no weft operation: bugs %v", res.Bugs)
	}
}

func TestStrayGoroutine(t *testing.T) {
	before := goruntime.NumGoroutine()
	res := explore(t, func() {
		var m sync.Mutex
		done := make(chan bool)
		go func() {
			defer close(done)
			m.Lock() // a weft operation from a goroutine weft does not run
		}()
		<-done
		m.Lock()
	})
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.Misuse || !strings.Contains(res.Bugs[0].Message, "weft.Go") {
		t.Fatalf("bugs: %v", res.Bugs)
	}
	time.Sleep(10 * time.Millisecond)
	if n := goruntime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines before, %d after", before, n)
	}
}
