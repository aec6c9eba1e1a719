package indep_test

import (
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/context"
	"weft.dev/weft/time"
)

// TestTimerTraces compares the engines on a request with a timeout under a
// context that another goroutine cancels: 27 classes, 46 traces (39 and
// 66 when the timeout's timer was set before its context joined the
// canceled one, and could fire first; 761 and 1,355 when weft/context was
// built of locks and atomics, where sdpor
// missed 309 traces raced by goroutines started after the events they race
// with: see TestLaterSpawn), still more interleavings than dfs can enumerate
// (the clock's critical sections interleave with everything). mpor
// explores each trace once, so its classes must be condpor's; sdpor must
// explore every trace mpor finds.
func TestTimerTraces(t *testing.T) {
	body := func() {
		ctx, cancel := context.WithCancel(context.Background())
		weft.Go(func() {
			time.Sleep(150 * time.Millisecond)
			cancel()
		})
		actx, acancel := context.WithTimeout(ctx, 100*time.Millisecond)
		reply := weft.MakeChan[int](1)
		weft.Go(func() { reply.Send(-1) })
		weft.Select(reply.RecvCase(nil, nil), actx.Done().RecvCase(nil, nil))
		acancel()
	}
	m := explore(body, 0, withMPOR)
	c := explore(body, 0, withCondpor)
	if !m.exhaustive || !c.exhaustive {
		t.Fatal("not explored to the end")
	}
	for h := range m.classes {
		if c.classes[h] == 0 {
			t.Errorf("condpor misses a class of mpor's")
		}
	}
	if len(m.classes) != len(c.classes) {
		t.Errorf("mpor's executions fall in %d classes, condpor explores %d", len(m.classes), len(c.classes))
	}
	if len(m.traces) != 46 || len(c.classes) != 27 {
		t.Errorf("mpor: %d traces, condpor: %d classes, want 46 and 27", len(m.traces), len(c.classes))
	}
	s := explore(body, 0, withSDPOR)
	missed := 0
	for h := range m.traces {
		if s.traces[h] == 0 {
			missed++
		}
	}
	if missed > 0 {
		t.Errorf("sdpor misses %d of mpor's %d traces", missed, len(m.traces))
	}
}
