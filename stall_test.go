package weft_test

import (
	goruntime "runtime"
	"strings"
	gosync "sync"
	goatomic "sync/atomic"
	"testing"
	"time"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/sync"
)

// TestStrayCallNeverHangs: a weft operation from a goroutine started with
// the go statement is a Misuse bug, reported promptly whatever that
// goroutine does next and however the body waits for it.
func TestStrayCallNeverHangs(t *testing.T) {
	for name, body := range map[string]func(){
		"body waits on a real channel": func() {
			var v weft.Var[int]
			done := make(chan bool)
			go func() {
				v.Store(1)
				done <- true
			}()
			<-done
		},
		"the stray blocks in a deferred call": func() {
			var v weft.Var[int]
			done, never := make(chan bool), make(chan bool)
			go func() {
				defer func() { <-never }()
				v.Store(1)
				done <- true
			}()
			<-done
		},
		"the stray loops in a deferred call": func() {
			var v weft.Var[int]
			var stop goatomic.Bool
			done := make(chan bool)
			go func() {
				defer func() {
					for !stop.Load() {
						goruntime.Gosched()
					}
				}()
				v.Store(1)
			}()
			go func() { time.Sleep(3 * time.Second); stop.Store(true) }()
			<-done
		},
		"the stray returns": func() {
			var m sync.Mutex
			done := make(chan bool)
			go func() {
				defer close(done)
				m.Lock()
			}()
			<-done
			m.Lock()
		},
		"nobody waits": func() {
			var v weft.Var[int]
			go v.Store(1)
			// Long enough for the stray to be scheduled on a loaded
			// machine: at 10 ms, CI's parallel packages made it miss the
			// check now and then.
			time.Sleep(200 * time.Millisecond)
			var x atomic.Int32
			x.Add(1)
		},
		"a weft goroutine waits": func() {
			var v weft.Var[int]
			weft.Go(func() {
				done := make(chan bool)
				go func() {
					v.Load()
					done <- true
				}()
				<-done
			}).Join()
		},
	} {
		t.Run(name, func(t *testing.T) {
			res, took := exploreWithin(t, body)
			b := res.Bugs
			if len(b) != 1 || b[0].Kind != weft.Misuse || !strings.Contains(b[0].Message, "start goroutines with weft.Go") || !strings.Contains(b[0].Message, "called at") {
				t.Fatalf("got %v, want the misuse", b)
			}
			if !strings.Contains(b[0].Message, "Var.") && !strings.Contains(b[0].Message, "Mutex.Lock") {
				t.Errorf("the message does not name the call: %s", b[0].Message)
			}
			if took > 5*time.Second {
				t.Errorf("took %v", took)
			}
		})
	}
	// Check reports it, with the same words.
	ft := &fakeT{TB: t}
	within(t, guard, func() {
		weft.Check(ft, func() {
			var v weft.Var[int]
			done := make(chan bool)
			go func() {
				v.Store(1)
				done <- true
			}()
			<-done
		})
	})
	if len(ft.errors) != 1 || !strings.Contains(ft.errors[0], "start goroutines with weft.Go") {
		t.Errorf("Check reported %q", ft.errors)
	}
}

// spin loops in plain Go until stop is set, as an unbounded loop would.
func spin(stop *goatomic.Bool) {
	for !stop.Load() {
	}
}

// TestStallIsReported: a goroutine that runs or blocks without a weft
// operation is reported, with its stack, and abandoned; the check returns.
func TestStallIsReported(t *testing.T) {
	stall := weft.WithStallTimeout(200 * time.Millisecond)
	var stop goatomic.Bool
	defer stop.Store(true)
	var mu gosync.Mutex
	mu.Lock()
	defer mu.Unlock()
	var wg gosync.WaitGroup
	wg.Add(1)
	defer wg.Done()
	never := make(chan bool)
	defer close(never)
	for _, c := range []struct {
		name  string
		body  func()
		opts  []weft.Option
		wants []string
		max   time.Duration
	}{
		{"a goroutine spins", func() {
			var x atomic.Int32
			g := weft.Go(func() {
				x.Add(1)
				spin(&stop)
			})
			x.Add(1)
			g.Join()
		}, []weft.Option{stall}, []string{"goroutine g1 ran", "s without a weft operation: an unbounded loop?", "weft_test.spin", "stall_test.go:"}, 5 * time.Second},
		{"the body spins on a variable weft does not see", func() {
			var flag goatomic.Bool
			var x atomic.Int32
			weft.Go(func() {
				x.Add(1)
				flag.Store(true)
			})
			for !flag.Load() && !stop.Load() {
			}
		}, []weft.Option{stall}, []string{"the body's goroutine (g0) ran", "an unbounded loop?", "TestStallIsReported"}, 5 * time.Second},
		{"the timeout ends a spin", func() {
			weft.Go(func() { spin(&stop) })
		}, []weft.Option{weft.WithTimeout(300 * time.Millisecond)}, []string{"an unbounded loop?", "the exploration's timeout had passed"}, 5 * time.Second},
		{"the timeout ends a spin, the bound off", func() {
			weft.Go(func() { spin(&stop) })
		}, []weft.Option{weft.WithTimeout(300 * time.Millisecond), weft.WithStallTimeout(0)}, []string{"an unbounded loop?"}, 5 * time.Second},
		{"a real channel", func() { <-never }, []weft.Option{stall}, []string{"blocked outside weft (a real channel, mutex or time.Sleep?)", "chan receive"}, 5 * time.Second},
		{"a real mutex", func() {
			var x atomic.Int32
			weft.Go(func() { x.Add(1) })
			x.Add(1)
			mu.Lock()
		}, []weft.Option{stall}, []string{"blocked outside weft"}, 5 * time.Second},
		{"a real WaitGroup", func() { wg.Wait() }, []weft.Option{stall}, []string{"blocked outside weft"}, 5 * time.Second},
		{"time.Sleep", func() { time.Sleep(time.Hour) }, []weft.Option{stall}, []string{"blocked outside weft", "sleep"}, 5 * time.Second},
		{"a later execution stalls", func() {
			var x atomic.Int32
			g := weft.Go(func() { x.Add(1) })
			if x.Load() == 1 {
				<-never
			}
			g.Join()
		}, []weft.Option{stall, weft.WithEngine("dfs")}, []string{"blocked outside weft"}, 5 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, took := exploreWithin(t, c.body, c.opts...)
			b := oneBug(t, res, weft.StepLimit, c.wants...)
			if took > c.max {
				t.Errorf("took %v", took)
			}
			if res.Exhaustive || res.Complete+res.Blocked != res.Executions {
				t.Errorf("statistics: %+v", res)
			}
			if b.Replay != "" {
				t.Errorf("an abandoned execution has a replay token %s", b.Replay)
			}
		})
	}
	// The check is over; so is the next one, which runs normally.
	res, _ := exploreWithin(t, bugPrograms[0].buggy)
	oneBug(t, res, weft.AssertionFailed, "lost update")
}

// TestAbandonedGoroutinesStayAway: the goroutines of an abandoned execution
// (its modelled goroutines and those they started with go) may wake up and
// call weft operations during a later check: they end, and the later check
// runs exactly as it would without them.
func TestAbandonedGoroutinesStayAway(t *testing.T) {
	later := func(release func()) func() {
		var once gosync.Once
		return func() {
			once.Do(release)
			var x atomic.Int32
			for range 2 {
				weft.Go(func() {
					x.Add(1)
					x.Add(1)
				})
			}
			x.Load()
		}
	}
	want, _ := exploreWithin(t, later(func() {}), weft.WithEngine("dfs"))

	var stop goatomic.Bool
	defer stop.Store(true)
	wake := make(chan struct{})
	woke := make(chan string, 8)
	stuck := func() {
		var v weft.Var[int]
		var x atomic.Int32
		g := weft.Go(func() {
			defer func() {
				woke <- "g1's deferred call"
			}()
			defer x.Add(1) // a weft operation in a deferred call
			x.Add(1)
			spin(&stop)
			v.Store(1) // after the abandonment
			woke <- "g1 went on"
		})
		go func() {
			<-wake
			defer func() { woke <- "the stray's deferred call" }()
			v.Load()
			woke <- "the stray went on"
		}()
		x.Add(1)
		g.Join()
	}
	res, _ := exploreWithin(t, stuck, weft.WithStallTimeout(200*time.Millisecond))
	oneBug(t, res, weft.StepLimit, "an unbounded loop?")

	for _, eng := range []string{"dfs", "condpor"} {
		got, _ := exploreWithin(t, later(func() {
			// While this check runs, the abandoned goroutines wake up.
			stop.Store(true)
			close(wake)
			for range 2 {
				if m := <-woke; strings.Contains(m, "went on") {
					t.Errorf("%s: an abandoned goroutine went on after a weft operation", m)
				}
			}
		}), weft.WithEngine(eng))
		if len(got.Bugs) != 0 || got.Exhaustive != true {
			t.Errorf("%s: the later check found %v (exhaustive %v)", eng, got.Bugs, got.Exhaustive)
		}
		if eng == "dfs" && (got.Executions != want.Executions || got.Complete != want.Complete) {
			t.Errorf("the later check ran %d executions (%d complete), want %d (%d)", got.Executions, got.Complete, want.Executions, want.Complete)
		}
		stop.Store(false)
		wake = make(chan struct{})
		if eng == "dfs" {
			// Abandon another one for the condpor round.
			res, _ := exploreWithin(t, stuck, weft.WithStallTimeout(200*time.Millisecond), weft.WithEngine("condpor"))
			oneBug(t, res, weft.StepLimit, "an unbounded loop?")
		}
	}
}

// TestTimeoutEndsALongExecution checks that WithTimeout ends an execution
// that is still running when it passes, with a StepLimit bug, and that
// the progress shows how far such an execution got. The checker looked at
// the timeout and showed progress only between executions: an execution
// that spins through weft operations for long (semaphore's
// TestWeightedAcquireCanceled: a TryAcquire/Release loop, each operation
// slower than the one before) ran for minutes with nothing to show.
func TestTimeoutEndsALongExecution(t *testing.T) {
	var progress strings.Builder
	res, took := exploreWithin(t, func() {
		var x atomic.Int32
		for {
			x.Add(1)
		}
	}, weft.WithTimeout(2500*time.Millisecond), weft.WithMaxSteps(1<<30), weft.WithProgress(&progress))
	// On a loaded machine the watchdog may find the goroutine between two
	// operations for longer than it allows once the timeout passed, and
	// report that first: the timeout cut the execution either way.
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.StepLimit ||
		!strings.Contains(res.Bugs[0].Message, "timeout (2.5s) passed during an execution") && !strings.Contains(res.Bugs[0].Message, "the exploration's timeout had passed") {
		t.Fatalf("bugs %v, want a StepLimit of the timeout", res.Bugs)
	}
	if took > 10*time.Second {
		t.Errorf("the check took %v with a timeout of 2.5s", took)
	}
	// An execution that the timeout finds under way, and that ends soon
	// after, is no bug: only the exploration stops.
	res, _ = exploreWithin(t, func() {
		var x atomic.Int32
		for range 2 {
			weft.Go(func() {
				for range 1000 {
					x.Add(1)
				}
			})
		}
	}, weft.WithTimeout(time.Millisecond))
	if len(res.Bugs) > 0 || res.Exhaustive {
		t.Errorf("executions of 2,000 operations (tens of ms) with a timeout of 1ms: bugs %v, exhaustive %v", res.Bugs, res.Exhaustive)
	}
	if !strings.Contains(progress.String(), "weft: 0 executions") || strings.Contains(progress.String(), "graph of 0 events") {
		t.Errorf("no progress of the execution under way in %q", progress.String())
	}
}

// TestStepLimitNamesStarved checks that a step limit names the goroutines
// that had an operation to perform and never moved while the looping one
// ran: x/sync's semaphore tests spin until another goroutine takes a mutex,
// which weft's unfair schedules need never let it do.
func TestStepLimitNamesStarved(t *testing.T) {
	tests := []struct {
		name string
		body func()
		want string // in the message; "" for no note
	}{
		{"waits for another", func() {
			var mu sync.Mutex
			var done atomic.Bool
			weft.Go(func() {
				mu.Lock()
				done.Store(true)
				mu.Unlock()
			})
			for !done.Load() {
				mu.Lock()
				mu.Unlock()
			}
		}, "these goroutines had one to perform and did not move: goroutine g1 (Lock of mutex#"},
		{"selects", func() {
			var x atomic.Int32
			done := weft.MakeChan[bool](0)
			weft.Go(func() {
				weft.Select(done.RecvCase(nil, nil), weft.Default())
			})
			for {
				x.Add(1)
			}
		}, "goroutine g1 (a select)"},
		{"alone", func() {
			var x atomic.Int32
			for {
				x.Add(1)
			}
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _ := exploreWithin(t, tt.body, weft.WithMaxSteps(100), weft.WithEngine("dfs"))
			if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.StepLimit {
				t.Fatalf("bugs %v, want a step limit", res.Bugs)
			}
			msg := res.Bugs[0].Message
			if tt.want == "" && strings.Contains(msg, "did not move") || tt.want != "" && !strings.Contains(msg, tt.want) {
				t.Errorf("the message is %q, want %q in it", msg, tt.want)
			}
		})
	}
}

// TestStrayBeforeGoroutinesRun: a stray call ends an execution whose
// replayed start spawned goroutines that have not run yet (condpor runs
// such a goroutine only when the replay needs it: see the runtime's
// spawn); the driver drops them unrun, rather than run their code in an
// execution that is over.
func TestStrayBeforeGoroutinesRun(t *testing.T) {
	execs := 0
	ran := map[int]int{} // by execution, the goroutines whose code ran
	res, _ := exploreWithin(t, func() {
		execs++
		n := execs
		var x atomic.Int32
		g := weft.Go(func() { ran[n]++; x.Store(1) })
		h := weft.Go(func() { ran[n]++; x.Store(2) })
		// The fourth execution replays the spawns, then this load,
		// which reads the initial value there, before either store.
		if x.Load() == 0 {
			var v weft.Var[int]
			done := make(chan bool)
			go func() {
				defer close(done)
				v.Store(1)
			}()
			<-done
		}
		x.Add(1)
		g.Join()
		h.Join()
	}, weft.WithWorkers(1))
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.Misuse {
		t.Fatalf("got %v, want the stray's misuse", res.Bugs)
	}
	if ran[execs] == 2 {
		t.Errorf("execution %d, ended by the stray: both goroutines ran; want one left unrun (executions: %v)", execs, ran)
	}
}
