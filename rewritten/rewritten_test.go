package rewritten_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	weftcontext "weft.dev/weft/context"
	"weft.dev/weft/rewritten"
)

// TestHelpers checks each helper against what the Go construct it stands
// for does, on one execution without goroutines.
func TestHelpers(t *testing.T) {
	tests := []struct {
		name string
		body func()
	}{
		{"recv", func() {
			c := weft.MakeChan[int](1)
			c.Send(7)
			c.Close()
			v, w := rewritten.Recv(c), rewritten.Recv(c)
			weft.Assert(v == 7 && w == 0, "got %d then %d, want 7 then 0", v, w)
		}},
		{"range stops at close", func() {
			c := weft.MakeChan[int](3)
			c.Send(1)
			c.Send(2)
			c.Close()
			var got []int
			for v := range rewritten.Range(c) {
				got = append(got, v)
			}
			weft.Assert(len(got) == 2 && got[0] == 1 && got[1] == 2, "got %v", got)
		}},
		{"range break", func() {
			c := weft.MakeChan[int](2)
			c.Send(1)
			c.Send(2)
			for range rewritten.Range(c) {
				break
			}
			weft.Assert(c.Len() == 1, "len %d after one iteration, want 1", c.Len())
		}},
		{"make named", func() {
			type ints = *weft.Chan[int]
			c := rewritten.Make[ints](2)
			weft.Assert(c.Cap() == 2, "cap %d", c.Cap())
		}},
		{"received", func() {
			c := weft.MakeChan[string](1)
			c.Send("x")
			r := rewritten.Receive(c)
			i := weft.Select(r.Case())
			weft.Assert(i == 0 && r.V == "x" && r.OK, "case %d: %q %v", i, r.V, r.OK)
			c.Close()
			r = rewritten.Receive(c)
			weft.Select(r.Case())
			weft.Assert(r.V == "" && !r.OK, "closed: %q %v", r.V, r.OK)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := weft.Check(t, tt.body)
			if res.Executions != 1 {
				t.Errorf("%d executions, want 1", res.Executions)
			}
		})
	}
}

// TestFailures checks that the failures of a test are failures of the
// execution, with the message the test gave.
func TestFailures(t *testing.T) {
	tests := []struct {
		name string
		fail func()
		want string
	}{
		{"Errorf", func() { rewritten.Errorf(t, "got %d", 1) }, "got 1"},
		{"Error", func() { rewritten.Error(t, "got", 1) }, "got 1"},
		{"Fail", func() { rewritten.Fail(t) }, "the test failed (t.Fail)"},
		{"Fatalf", func() { rewritten.Fatalf(t, "got %d", 1) }, "got 1"},
		{"Fatal", func() { rewritten.Fatal(t, "got", 1) }, "got 1"},
		{"FailNow", func() { rewritten.FailNow(t) }, "the test failed (t.FailNow)"},
	}
	for _, tt := range tests {
		res, err := weft.Explore(tt.fail)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.AssertionFailed || res.Bugs[0].Message != tt.want {
			t.Errorf("%s: bugs %v, want one assertion failure %q", tt.name, res.Bugs, tt.want)
		}
	}
}

// recorder is a testing.TB that records the failures reported to it.
type recorder struct {
	testing.TB
	failures []string
}

func (r *recorder) Helper() {}

func (r *recorder) Error(args ...any) { r.failures = append(r.failures, fmt.Sprint(args...)) }

func (r *recorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

func (r *recorder) Fail() { r.failures = append(r.failures, "Fail") }

// Fatal, Fatalf and FailNow record, and do not end the goroutine as
// testing's do: the test goes on.
func (r *recorder) Fatal(args ...any) { r.failures = append(r.failures, "Fatal "+fmt.Sprint(args...)) }

func (r *recorder) Fatalf(format string, args ...any) {
	r.failures = append(r.failures, "Fatalf "+fmt.Sprintf(format, args...))
}

func (r *recorder) FailNow() { r.failures = append(r.failures, "FailNow") }

// TestFailuresOutside checks that the failures are the test's own outside a
// check, in the code of a test that runs subtests.
func TestFailuresOutside(t *testing.T) {
	r := &recorder{TB: t}
	rewritten.Errorf(r, "got %d", 1)
	rewritten.Error(r, "got", 2)
	rewritten.Fail(r)
	rewritten.Fatal(r, "x")
	rewritten.Fatalf(r, "y%d", 3)
	rewritten.FailNow(r)
	if got := fmt.Sprint(r.failures); got != "[got 1 got2 Fail Fatal x Fatalf y3 FailNow]" {
		t.Errorf("failures %s", got)
	}
}

// TestFailuresBesideACheck checks that a test running beside a check (a
// parallel test's code outside its subtests) fails itself.
func TestFailuresBesideACheck(t *testing.T) {
	ready, done, over := make(chan bool), make(chan bool), make(chan bool)
	go func() {
		weft.Explore(func() { ready <- true; <-done })
		close(over)
	}()
	<-ready
	r := &recorder{TB: t}
	rewritten.Errorf(r, "beside")
	close(done)
	<-over
	if got := fmt.Sprint(r.failures); got != "[beside]" {
		t.Errorf("failures %s", got)
	}
}

// TestRun checks that a subtest run by Run is explored as a body, and that
// Run inside a check is a misuse.
func TestRun(t *testing.T) {
	outcomes := map[int]bool{}
	rewritten.Run(t, "sub", func(t *testing.T) {
		c := weft.MakeChan[int](2)
		weft.Go(func() { c.Send(1) })
		c.Send(2)
		v, _ := c.Recv()
		outcomes[v] = true
	})
	if !outcomes[1] || !outcomes[2] {
		t.Errorf("outcomes %v, want both orders", outcomes)
	}
	// Inside a check, two subtests run in turn as parts of its body, each
	// on a goroutine the caller waits for: the race of the second's
	// goroutines is found, after the first's.
	var order []string
	res, err := weft.Explore(func() {
		order = order[:0]
		for _, name := range []string{"first", "second"} {
			ok := rewritten.Run(t, name, func(*testing.T) {
				var x atomic.Int32
				g := weft.Go(func() { x.Store(1) })
				if name == "second" {
					weft.Assert(x.Load() == 0, "x is %d", x.Load())
				}
				g.Join()
				order = append(order, name)
			})
			weft.Assert(ok, "t.Run returned false")
		}
	}, weft.WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.AssertionFailed || !strings.Contains(res.Bugs[0].Message, "x is 1") {
		t.Errorf("bugs %v, want the second subtest's assertion", res.Bugs)
	}
	if !slices.Equal(order, []string{"first"}) {
		t.Errorf("the subtests that ended before the bug: %v, want the first", order)
	}
}

// TestContexts checks the conversions between weft's contexts and the
// standard library's: values carried, never canceled, and back to the
// context converted.
func TestContexts(t *testing.T) {
	type key struct{}
	weft.Check(t, func() {
		ctx, cancel := weftcontext.WithCancel(weftcontext.WithValue(weftcontext.Background(), key{}, "v"))
		cancel()
		std := rewritten.StdContext(ctx)
		weft.Assert(std.Value(key{}) == "v" && std.Err() == nil && std.Done() == nil, "the standard context: %v, %v", std.Value(key{}), std.Err())
		weft.Assert(rewritten.WeftContext(std) == ctx, "converted back: not the same context")
		w := rewritten.WeftContext(context.WithValue(context.Background(), key{}, "w"))
		weft.Assert(w.Value(key{}) == "w" && w.Err() == nil && w.Done() == nil, "the weft context: %v, %v", w.Value(key{}), w.Err())
		weft.Assert(rewritten.StdContext(nil) == nil && rewritten.WeftContext(nil) == nil, "nil converted to a context")
	})
}

// TestCleanup: inside a check, t.Cleanup's functions run in each execution
// when the body returns, the last added first (one added by a cleanup
// next), as modelled operations of the body: a goroutine that a cleanup
// receives from is no leak. Outside, they are testing's.
func TestCleanup(t *testing.T) {
	var order []int
	res, err := weft.Explore(func() {
		order = order[:0]
		done := weft.MakeChan[bool](0)
		weft.Go(func() { done.Send(true) })
		rewritten.Cleanup(t, func() {
			order = append(order, 1)
			done.Recv()
		})
		rewritten.Cleanup(t, func() {
			order = append(order, 2)
			rewritten.Cleanup(t, func() { order = append(order, 3) })
		})
	}, weft.WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) > 0 || !res.Exhaustive || !slices.Equal(order, []int{2, 3, 1}) {
		t.Errorf("bugs %v, exhaustive %v, cleanups ran in the order %v, want [2 3 1]", res.Bugs, res.Exhaustive, order)
	}
	ran := false
	t.Run("outside", func(t *testing.T) { rewritten.Cleanup(t, func() { ran = true }) })
	if !ran {
		t.Error("the cleanup of a subtest outside any check did not run when it ended")
	}
}

// TestReporter: a *testing.T handed as an interface to a package that is
// not rewritten (testify's TestingT) reports its failures as the
// execution's, with their message.
func TestReporter(t *testing.T) {
	type testingT interface {
		Errorf(format string, args ...any)
		FailNow()
		Helper()
	}
	for name, fail := range map[string]func(testingT){
		"Errorf":  func(t testingT) { t.Errorf("got %d", 1) },
		"FailNow": func(t testingT) { t.FailNow() },
	} {
		res, err := weft.Explore(func() { fail(rewritten.Report(t)) }, weft.WithWorkers(1))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.AssertionFailed {
			t.Errorf("%s: bugs %v, want the failure", name, res.Bugs)
		} else if name == "Errorf" && res.Bugs[0].Message != "got 1" {
			t.Errorf("Errorf: the message is %q", res.Bugs[0].Message)
		}
	}
}
