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
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.GoroutineLeak || !strings.Contains(res.Bugs[0].Message, "a finalizer or cleanup set at finalizer_test.go:") {
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
