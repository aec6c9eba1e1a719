package weft_test

// The checker never hangs or crashes because of the program it checks:
// parallel tests, panics of every shape, joins, many goroutines, bad
// configurations and replay tokens.

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/sync"
)

// TestParallelChecks: checks of parallel tests run at once, each with its
// own results.
func TestParallelChecks(t *testing.T) {
	type program struct {
		body func()
		kind weft.BugKind // -1: none
	}
	programs := []program{
		{bugPrograms[0].buggy, weft.AssertionFailed},
		{bugPrograms[0].clean, -1},
		{bugPrograms[1].buggy, weft.Panic},
		{func() {
			var x atomic.Int32
			for range 3 {
				weft.Go(func() { x.Add(1); x.Add(1) })
			}
		}, -1},
	}
	want := make([]weft.Result, len(programs))
	for i, p := range programs {
		want[i], _ = exploreWithin(t, p.body, weft.WithEngine("dfs"))
	}
	t.Run("group", func(t *testing.T) {
		for round := range 3 {
			for i, p := range programs {
				t.Run(fmt.Sprintf("%d-%d", round, i), func(t *testing.T) {
					t.Parallel()
					ft := &fakeT{TB: t}
					var res weft.Result
					within(t, 2*guard, func() { res = weft.Check(ft, p.body, weft.WithEngine("dfs")) })
					if res.Executions != want[i].Executions || res.Complete != want[i].Complete || len(res.Bugs) != len(want[i].Bugs) {
						t.Errorf("got %d executions, %d complete, %d bugs; alone: %d, %d, %d", res.Executions, res.Complete, len(res.Bugs), want[i].Executions, want[i].Complete, len(want[i].Bugs))
					}
					if p.kind < 0 && (len(ft.errors) != 0 || ft.fatal != "") {
						t.Errorf("reported %q %q", ft.errors, ft.fatal)
					}
					if p.kind >= 0 && (len(ft.errors) != 1 || !strings.Contains(ft.errors[0], p.kind.String())) {
						t.Errorf("reported %q, want a %v", ft.errors, p.kind)
					}
				})
			}
		}
	})
}

type codeError struct{ code int }

func (e codeError) Error() string { return fmt.Sprintf("code %d", e.code) }

type point struct{ x, y int }

// TestPanics: a panic of any shape is a Panic bug with its value in the
// message, a trace and a replay token.
func TestPanics(t *testing.T) {
	for _, c := range []struct {
		name string
		body func()
		want string
	}{
		{"error", func() { panic(errors.New("disk full")) }, "g0 panicked: disk full"},
		{"custom error type", func() { panic(codeError{7}) }, "panicked: code 7"},
		{"custom type", func() { panic(point{1, 2}) }, "panicked: {1 2}"},
		{"nil", func() { panic(nil) }, "panicked: panic called with nil argument"},
		{"in a deferred call", func() {
			weft.Go(func() {
				defer func() { panic("from a deferred call") }()
				var x atomic.Int32
				x.Add(1)
			}).Join()
		}, "g1 panicked: from a deferred call"},
		{"re-panic", func() {
			var x atomic.Int32
			g := weft.Go(func() {
				defer func() {
					r := recover()
					x.Add(1)
					panic(fmt.Sprint("again: ", r))
				}()
				x.Add(1)
				panic("first")
			})
			x.Add(1)
			g.Join()
		}, "g1 panicked: again: first"},
		{"in a deferred call while unwinding", func() {
			var x atomic.Int32
			weft.Go(func() {
				defer func() {
					// Recovers weft's own signal when the execution is
					// unwound, and panics with another value.
					if r := recover(); r != nil {
						panic(fmt.Sprint("cleanup after ", r))
					}
				}()
				x.Add(1)
				x.Add(1)
			})
			x.Add(1)
			if x.Load() == 2 {
				panic("the body's")
			}
		}, "g0 panicked: the body's"},
	} {
		for _, eng := range robustEngines {
			t.Run(c.name+"/"+eng, func(t *testing.T) {
				res, _ := exploreWithin(t, c.body, weft.WithEngine(eng))
				if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.Panic {
					t.Fatalf("bugs %v, want a panic", res.Bugs)
				}
				b := res.Bugs[0]
				if !strings.Contains(b.Message, c.want) || b.Replay == "" || len(b.Trace.Steps) == 0 {
					t.Errorf("want %q with a trace and a token; got:\n%v", c.want, b)
				}
			})
		}
	}
}

// TestJoinTwice: joining an ended goroutine returns at once, however often.
func TestJoinTwice(t *testing.T) {
	for _, eng := range robustEngines {
		res, _ := exploreWithin(t, func() {
			var x atomic.Int32
			g := weft.Go(func() { x.Add(1) })
			x.Add(1)
			g.Join()
			g.Join()
			weft.Go(func() { g.Join() }).Join()
			weft.Assert(x.Load() == 2, "x = %d", x.Load())
		}, weft.WithEngine(eng))
		if len(res.Bugs) != 0 || !res.Exhaustive || res.Executions < 2 {
			t.Errorf("%s: %+v", eng, res)
		}
	}
}

// TestManyGoroutines: 300 goroutines in one body.
func TestManyGoroutines(t *testing.T) {
	const n = 300
	body := func() {
		var xs [n]atomic.Int32
		var sum atomic.Int32
		gs := make([]*weft.Goroutine, n)
		for i := range n {
			gs[i] = weft.Go(func() {
				xs[i].Add(1)
				sum.Add(1)
			})
		}
		for _, g := range gs {
			g.Join()
		}
		weft.Assert(sum.Load() == n, "sum = %d", sum.Load())
	}
	for _, c := range []struct {
		eng  string
		opts []weft.Option
	}{
		{"dfs", []weft.Option{weft.WithMaxExecutions(20)}},
		{"condpor", []weft.Option{weft.WithMaxExecutions(20)}},
		{"random", []weft.Option{weft.WithMaxExecutions(20)}},
	} {
		res, took := exploreWithin(t, body, append(c.opts, weft.WithEngine(c.eng))...)
		if len(res.Bugs) != 0 || res.Executions != 20 || res.Complete != 20 {
			t.Errorf("%s: %+v", c.eng, res)
		}
		if took > 10*time.Second {
			t.Errorf("%s: took %v", c.eng, took)
		}
	}
}

// TestEnvErrors: every WEFT_* variable with a nonsense value is an error
// that names it.
func TestEnvErrors(t *testing.T) {
	for _, c := range []struct{ name, value string }{
		{"WEFT_ENGINE", "quantum"},
		{"WEFT_MAX_EXECUTIONS", "ten"},
		{"WEFT_MAX_EXECUTIONS", "-3"},
		{"WEFT_MAX_EXECUTIONS", "1e3"},
		{"WEFT_TIMEOUT", "soon"},
		{"WEFT_TIMEOUT", "-1s"},
		{"WEFT_TIMEOUT", "10"},
		{"WEFT_SEED", "-1"},
		{"WEFT_SEED", "seed"},
		{"WEFT_REPLAY", "not-a-token"},
		{"WEFT_REPLAY", "weft1-!!!"},
		{"WEFT_PROGRESS", "maybe"},
		{"WEFT_PROGRESS", "relative/file"},
		{"WEFT_MAX_STEPS", "many"},
		{"WEFT_MAX_STEPS", "-5"},
		{"WEFT_ALL_BUGS", "sure"},
		{"WEFT_STALL_TIMEOUT", "forever"},
		{"WEFT_STALL_TIMEOUT", "-1s"},
	} {
		t.Run(c.name+"="+c.value, func(t *testing.T) {
			t.Setenv(c.name, c.value)
			var err error
			within(t, guard, func() { _, err = weft.Explore(func() {}) })
			if err == nil || !strings.Contains(err.Error(), c.name) {
				t.Errorf("err = %v; want an error naming %s", err, c.name)
			}
		})
	}
	if _, err := weft.Explore(func() {}, weft.WithStallTimeout(-time.Second)); err == nil || !strings.Contains(err.Error(), "WithStallTimeout") {
		t.Errorf("negative WithStallTimeout: err = %v", err)
	}
	t.Setenv("WEFT_STALL_TIMEOUT", "150ms")
	res, _ := exploreWithin(t, func() { time.Sleep(time.Hour) })
	oneBug(t, res, weft.StepLimit, "blocked outside weft")
}

// TestBadReplayTokens: tokens that are corrupted, truncated, of another
// program or of another version of weft are errors that say so; a token
// whose program changed is a Nondeterminism bug that says so.
func TestBadReplayTokens(t *testing.T) {
	buggy := bugPrograms[0].buggy
	res, _ := exploreWithin(t, buggy)
	tok := oneBug(t, res, weft.AssertionFailed).Replay
	flip := []byte(tok)
	flip[len(flip)/2] ^= 1
	for _, c := range []struct{ name, tok, want string }{
		{"corrupted", string(flip), "corrupted"},
		{"truncated", tok[:len(tok)-3], "corrupted"},
		{"cut short", tok[:8], "corrupted"},
		{"foreign", "4f2a9c", "does not start with"},
		{"another program", "", "different program"},
		{"another version", "weft0-" + tok[strings.IndexByte(tok, '-')+1:], "another version of weft"},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := buggy
			tok := c.tok
			if tok == "" {
				body, tok = bugPrograms[1].buggy, res.Bugs[0].Replay
			}
			var err error
			within(t, guard, func() { _, err = weft.Explore(body, weft.WithReplay(tok)) })
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "WEFT_REPLAY") {
				t.Errorf("err = %v; want %q", err, c.want)
			}
		})
	}
	// A token of the same program (the same place in the source) that no
	// longer fits it: the program changed since the token was printed.
	a, b := func() { staleProgram(false) }, func() { staleProgram(true) }
	ra, _ := exploreWithin(t, a)
	got, _ := exploreWithin(t, b, weft.WithReplay(oneBug(t, ra, weft.AssertionFailed).Replay))
	oneBug(t, got, weft.Nondeterminism, "did something different when the execution was replayed")
}

// staleProgram is a program and its edited version.
func staleProgram(edited bool) {
	var x atomic.Int32
	g := weft.Go(func() { x.Add(1) })
	if edited {
		x.Add(1)
		x.Add(1)
	}
	weft.Assert(x.Load() == 0, "x = %d", x.Load())
	g.Join()
}

// switched counts the executions of TestNondeterministicChannels'
// programs, which pick their channels by it, as a program ranging over a
// map picks them by its iteration order.
var switched int

// TestNondeterministicChannels: a program whose goroutine sends on, or
// selects over, other channels when an execution is replayed than when it
// was recorded is a Nondeterminism bug for every engine that replays, not
// a crash of weft's (condpor replayed the send on the recorded channel's
// locations) nor an exploration of executions the program cannot have (the
// other engines compared the operations' kinds, not their channels).
func TestNondeterministicChannels(t *testing.T) {
	programs := map[string]func(){
		"send": func() {
			switched++
			cs := []*weft.Chan[int]{weft.MakeChan[int](1), weft.MakeChan[int](1)}
			var wg sync.WaitGroup
			for i := range cs {
				wg.Add(1)
				weft.Go(func() {
					defer wg.Done()
					cs[(i+switched)%2].Send(1)
				})
			}
			wg.Wait()
		},
		"select": func() {
			switched++
			a, b := weft.MakeChan[int](0), weft.MakeChan[int](0)
			weft.Go(func() { a.Send(1) })
			weft.Go(func() { b.Send(2) })
			first, second := a, b
			if switched%2 == 0 {
				first, second = b, a
			}
			weft.Select(first.RecvCase(nil, nil), second.RecvCase(nil, nil))
			weft.Select(first.RecvCase(nil, nil), second.RecvCase(nil, nil))
		},
	}
	for name, body := range programs {
		for _, eng := range []string{"condpor", "dfs", "random", "sdpor", "mpor", "qpor", "cdpor"} {
			t.Run(name+"/"+eng, func(t *testing.T) {
				switched = 0
				res, _ := exploreWithin(t, body, weft.WithEngine(eng), weft.WithWorkers(1))
				if eng == "random" {
					// It replays no prefix: each execution is as it
					// comes, and none is wrong.
					if len(res.Bugs) > 0 {
						t.Fatalf("random: %v", res.Bugs[0])
					}
					return
				}
				oneBug(t, res, weft.Nondeterminism, "did something different when the execution was replayed")
			})
		}
	}
}
