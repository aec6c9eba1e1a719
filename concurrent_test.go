package weft_test

import (
	"fmt"
	"strings"
	gosync "sync"
	"testing"
	gotime "time"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/sync"
	"weft.dev/weft/time"
)

// Objects that the checks of TestConcurrentChecks share: each check binds
// them in its executions as if it ran alone.
var (
	sharedMu sync.Mutex
	sharedN  weft.Var[int]
	sharedX  atomic.Int32
	sharedM  sync.Map
)

// concurrentPrograms are programs with bugs and without, with goroutines
// started with the go statement, with objects that all the checks share,
// and with weft/time's clock (a value per execution kept in a package-level
// variable).
var concurrentPrograms = func() map[string]func() {
	ps := map[string]func(){
		"shared mutex": func() {
			inc := func() {
				sharedMu.Lock()
				defer sharedMu.Unlock()
				sharedN.Store(sharedN.Load() + 1)
			}
			g := weft.Go(inc)
			inc()
			g.Join()
			weft.Assert(sharedN.Load() == 2, "lost update: n = %d", sharedN.Load())
		},
		"shared lost update": func() {
			g := weft.Go(func() { sharedX.Store(sharedX.Load() + 1) })
			sharedX.Store(sharedX.Load() + 1)
			g.Join()
			weft.Assert(sharedX.Load() == 2, "lost update: x = %d", sharedX.Load())
		},
		"shared map": func() {
			g := weft.Go(func() { sharedM.Store("k", 1) })
			v, ok := sharedM.Load("k")
			g.Join()
			weft.Assert(!ok || v == 1, "v = %v", v)
		},
		"timeout": func() {
			reply := weft.MakeChan[int](0)
			weft.Go(func() {
				time.Sleep(2 * time.Second)
				reply.Send(42)
			})
			weft.Select(reply.RecvCase(nil, nil), time.After(time.Second).RecvCase(nil, nil))
		},
		"stray": func() {
			var v weft.Var[int]
			done := make(chan bool)
			go func() {
				v.Store(1)
				done <- true
			}()
			<-done
		},
	}
	for i, p := range bugPrograms {
		if p.kind == weft.Nondeterminism {
			// Its outcome depends on the checks that ran before.
			continue
		}
		ps[fmt.Sprintf("buggy %d", i)] = p.buggy
		ps[fmt.Sprintf("clean %d", i)] = p.clean
	}
	return ps
}()

// summary is what a check found, to compare with what it finds alone: not
// the executions that its bugs' reports show, which the time budget of
// their minimization may cut short, but their kinds, and the messages of
// those that have no report.
func summary(res weft.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d executions, %d complete, %d blocked, %d redundant, exhaustive %v\n", res.Executions, res.Complete, res.Blocked, res.Redundant, res.Exhaustive)
	for _, bug := range res.Bugs {
		fmt.Fprintf(&b, "%v", bug.Kind)
		if bug.Replay == "" {
			fmt.Fprintf(&b, ": %s", bug.Message)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// replays reports, "" if none, the bugs of res whose replay tokens do not
// lead to the same bug in body: their reports were mixed up with another
// check's.
func replays(body func(), res weft.Result, opts ...weft.Option) string {
	first := func(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }
	var msgs []string
	for _, bug := range res.Bugs {
		if bug.Replay == "" {
			continue
		}
		again, err := weft.Explore(body, append(opts, weft.WithReplay(bug.Replay))...)
		if err != nil || len(again.Bugs) != 1 || again.Bugs[0].Kind != bug.Kind || first(again.Bugs[0].Message) != first(bug.Message) {
			msgs = append(msgs, fmt.Sprintf("the token of %v: %s replays as (error %v): %s", bug.Kind, bug.Message, err, summary(again)))
		}
	}
	return strings.Join(msgs, "\n")
}

// TestConcurrentChecks: checks that run at once, from parallel tests or
// from goroutines, each find what they find alone, with every engine that
// explores systematically; so do checks that a stall ends meanwhile.
func TestConcurrentChecks(t *testing.T) {
	// The step limit of buggy 4's endless loop, low to keep the test short.
	const maxSteps = 1000
	type check struct {
		name, eng string
		body      func()
	}
	var checks []check
	alone := map[string]string{}
	for _, eng := range []string{"condpor", "dfs", "sdpor", "mpor", "qpor"} {
		for name, body := range concurrentPrograms {
			c := check{name + "/" + eng, eng, body}
			checks = append(checks, c)
			res, _ := exploreWithin(t, body, weft.WithEngine(eng), weft.WithMaxSteps(maxSteps))
			alone[c.name] = summary(res)
		}
	}
	// run and stall report what is wrong, "" if nothing: they run on
	// goroutines of their own too.
	run := func(c check) string {
		res, err := weft.Explore(c.body, weft.WithEngine(c.eng), weft.WithMaxSteps(maxSteps))
		if got := summary(res); err != nil || got != alone[c.name] {
			return fmt.Sprintf("%s found, at once with other checks (error %v):\n%s\nalone:\n%s", c.name, err, got, alone[c.name])
		}
		return replays(c.body, res, weft.WithMaxSteps(maxSteps))
	}
	stall := func() string {
		res, err := weft.Explore(func() { gotime.Sleep(gotime.Hour) }, weft.WithStallTimeout(150*gotime.Millisecond))
		if err != nil || len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.StepLimit || !strings.Contains(res.Bugs[0].Message, "blocked outside weft") {
			return fmt.Sprintf("the stall: error %v, %s", err, summary(res))
		}
		return ""
	}
	guarded := func(t *testing.T, f func() string) {
		var msg string
		within(t, 2*guard, func() { msg = f() })
		if msg != "" {
			t.Error(msg)
		}
	}
	// The body of a check waits for that of another, started once the
	// first runs: checks that ran one at a time would stall.
	t.Run("at once", func(t *testing.T) {
		started, ready := make(chan struct{}), make(chan struct{})
		var start, finish gosync.Once
		guarded(t, func() string {
			var first weft.Result
			var err error
			done := make(chan struct{})
			go func() {
				defer close(done)
				first, err = weft.Explore(func() {
					start.Do(func() { close(started) })
					<-ready
					bugPrograms[0].clean()
				}, weft.WithStallTimeout(5*gotime.Second))
			}()
			<-started
			second, err2 := weft.Explore(func() {
				finish.Do(func() { close(ready) })
				bugPrograms[0].clean()
			})
			<-done
			if err != nil || err2 != nil || len(first.Bugs) != 0 || len(second.Bugs) != 0 || !first.Exhaustive || !second.Exhaustive {
				return fmt.Sprintf("errors %v, %v; first:\n%s\nsecond:\n%s", err, err2, summary(first), summary(second))
			}
			return ""
		})
	})
	t.Run("parallel tests", func(t *testing.T) {
		for round := range 2 {
			for _, c := range checks {
				t.Run(fmt.Sprintf("%s/%d", c.name, round), func(t *testing.T) {
					t.Parallel()
					guarded(t, func() string { return run(c) })
				})
			}
			t.Run(fmt.Sprintf("stall/%d", round), func(t *testing.T) {
				t.Parallel()
				guarded(t, stall)
			})
		}
	})
	// As many checks at once as there are, whatever -parallel says.
	t.Run("goroutines", func(t *testing.T) {
		guarded(t, func() string {
			msgs := make([]string, len(checks)+1)
			var wg gosync.WaitGroup
			for i, c := range checks {
				wg.Go(func() { msgs[i] = run(c) })
			}
			wg.Go(func() { msgs[len(checks)] = stall() })
			wg.Wait()
			return strings.TrimSpace(strings.Join(msgs, "\n"))
		})
	})
	// Check reports each check's bugs to its own test.
	t.Run("Check", func(t *testing.T) {
		guarded(t, func() string {
			var msgs []string
			var mu gosync.Mutex
			var wg gosync.WaitGroup
			for i, p := range bugPrograms {
				if p.kind == weft.Nondeterminism {
					continue
				}
				for _, v := range []struct {
					body  func()
					buggy bool
				}{{p.buggy, true}, {p.clean, false}} {
					wg.Go(func() {
						ft := &fakeT{TB: t}
						weft.Check(ft, v.body, weft.WithMaxSteps(maxSteps))
						if v.buggy && (len(ft.errors) != 1 || !strings.Contains(ft.errors[0], p.kind.String())) || !v.buggy && len(ft.errors) != 0 {
							mu.Lock()
							msgs = append(msgs, fmt.Sprintf("program %d (buggy %v): Check reported %q", i, v.buggy, ft.errors))
							mu.Unlock()
						}
					})
				}
			}
			wg.Wait()
			return strings.Join(msgs, "\n")
		})
	})
}
