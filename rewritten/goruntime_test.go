package rewritten_test

import (
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"weft.dev/weft"
	"weft.dev/weft/rewritten"
)

type janitor struct{ stop *weft.Chan[bool] }

// TestSetFinalizer: a finalizer set inside a check never runs, neither in
// the check nor after it, when the collector finds its object (it sends
// on the execution's channel, which panicked outside the check and ended
// the test binary: patrickmn/go-cache); the leak of the goroutine it would
// have stopped names it. Outside a check, runtime's finalizers run.
func TestSetFinalizer(t *testing.T) {
	res, err := weft.Explore(func() {
		j := &janitor{stop: weft.MakeChan[bool](0)}
		weft.Go(func() { j.stop.Recv() })
		obj := new([64]byte)
		rewritten.SetFinalizer(obj, func(*[64]byte) { j.stop.Send(true) })
		c := rewritten.AddCleanup(obj, func(int) { j.stop.Send(true) }, 0)
		c.Stop()
	}, weft.WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.GoroutineLeak || !strings.Contains(res.Bugs[0].Message, "a finalizer or cleanup set at goruntime_test.go:") {
		t.Errorf("got %v, want a leak that names the finalizer", res.Bugs)
	}
	for range 3 {
		goruntime.GC()
		time.Sleep(10 * time.Millisecond)
	}

	ran := make(chan bool, 1)
	func() {
		obj := new([64]byte)
		rewritten.SetFinalizer(obj, func(*[64]byte) { ran <- true })
	}()
	for range 100 {
		goruntime.GC()
		select {
		case <-ran:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Error("the finalizer set outside a check did not run")
}

// TestNumGoroutine: inside a check, runtime.NumGoroutine counts the
// execution's goroutines that have not ended and the test binary's main
// goroutine, whatever weft runs the check on; outside, the process's.
func TestNumGoroutine(t *testing.T) {
	if n, want := rewritten.NumGoroutine(), goruntime.NumGoroutine(); n != want {
		t.Errorf("outside a check: %d, want runtime's %d", n, want)
	}
	res, err := weft.Explore(func() {
		before := rewritten.NumGoroutine()
		weft.Assert(before == 2, "before: %d", before)
		c := weft.MakeChan[int](0)
		g := weft.Go(func() { c.Recv() })
		weft.Assert(rewritten.NumGoroutine() == 3, "with g1 waiting: %d", rewritten.NumGoroutine())
		c.Send(1)
		g.Join()
		weft.Assert(rewritten.NumGoroutine() == before, "after g1 ended: %d", rewritten.NumGoroutine())
	}, weft.WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) > 0 {
		t.Error(res.Bugs[0])
	}
}
