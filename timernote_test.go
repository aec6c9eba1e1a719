package weft_test

import (
	"strings"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/time"
)

// TestTimerNote checks that the report of an assertion failure that comes
// after a timer fired says so, and where the timer was set: x/sync's
// tests give up on a hang with time.After(time.Second), which weft fires
// before the goroutines are done, and the failure looked like a bug of
// the code under test.
func TestTimerNote(t *testing.T) {
	tests := []struct {
		name string
		body func()
		note string // what the report says, or "" for no note
	}{
		{"hang detector", func() {
			done := weft.MakeChan[bool](1)
			weft.Go(func() { done.Send(true) })
			if weft.Select(done.RecvCase(nil, nil), time.After(time.Second).RecvCase(nil, nil)) == 1 {
				weft.Assert(false, "hangs")
			}
		}, "note: timer#1, set at timernote_test.go:26, fired at +1s before the failure"},
		{"sleep", func() {
			var n atomic.Int32
			weft.Go(func() { n.Store(1) })
			time.Sleep(time.Second)
			weft.Assert(n.Load() == 1, "not done after a second")
		}, "note: timer#1, a time.Sleep, set at timernote_test.go:33, ended at +1s before the failure: weft runs the other goroutines in any order"},
		{"ticker", func() {
			var n atomic.Int32
			tk := time.NewTicker(time.Millisecond)
			weft.Go(func() {
				for range 10 {
					tk.C.Recv()
					n.Add(1)
				}
			})
			time.Sleep(time.Second)
			weft.Assert(n.Load() == 10, "%d ticks in a second", n.Load())
		}, "note: ticker#1, set at timernote_test.go:38, fired its first 3 ticks before the failure"},
		{"no timer", func() {
			var n atomic.Int32
			g := weft.Go(func() { n.Store(n.Load() + 1) })
			n.Store(n.Load() + 1)
			g.Join()
			weft.Assert(n.Load() == 2, "lost update")
		}, ""},
		{"timer, no assertion", func() {
			c := weft.MakeChan[bool](0)
			time.AfterFunc(time.Second, func() { c.Send(true) })
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{TB: t, name: "TestTimerNote"}
			weft.Check(r, tt.body, weft.WithEngine("dfs"))
			if len(r.errors) == 0 {
				t.Fatalf("no bug reported")
			}
			got := strings.Contains(r.errors[0], "note: timer#")
			if tt.note == "" && got {
				t.Errorf("a note where there is none to make:\n%s", r.errors[0])
			}
			if tt.note != "" && !strings.Contains(r.errors[0], tt.note) {
				t.Errorf("the report lacks %q:\n%s", tt.note, r.errors[0])
			}
		})
	}
}
