package runtime

import (
	"strings"
	"testing"

	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/engine/dfs"
	"weft.dev/weft/internal/event"
)

// failing is an engine that fails in Begin or End on its second call, as
// a bug of weft's would.
type failing struct {
	engine.Engine
	in    string
	calls int
}

func (f *failing) Begin(x *engine.Exec) bool {
	if f.in == "Begin" {
		if f.calls++; f.calls == 2 {
			panic("weft: internal error: boom")
		}
	}
	return f.Engine.Begin(x)
}

func (f *failing) End(x *engine.Exec, e engine.Ending) {
	if f.in == "End" {
		if f.calls++; f.calls == 1 {
			panic("weft: internal error: boom")
		}
	}
	f.Engine.End(x, e)
}

// TestEngineFailure checks that a panic of the engine between two
// executions ends the check with an internal error, rather than crashing
// the test binary.
func TestEngineFailure(t *testing.T) {
	for _, in := range []string{"Begin", "End"} {
		t.Run(in, func(t *testing.T) {
			eng := &failing{Engine: dfs.New(engine.Config{}), in: in}
			rep := Run(func() {}, Config{Engine: eng})
			if !strings.Contains(rep.Internal, "boom") {
				t.Fatalf("Internal = %q, want the engine's panic", rep.Internal)
			}
		})
	}
}

// local is a value of CheckLocal that counts its closes.
type local struct{ closed int }

func (l *local) Close() error { l.closed++; return nil }

// TestCheckLocal checks that the executions of a check share its value of
// CheckLocal, that another check gets its own, and that each is closed
// once, when its check ends.
func TestCheckLocal(t *testing.T) {
	type key struct{}
	var made []*local
	body := func() {
		mk := func() any {
			l := &local{}
			made = append(made, l)
			return l
		}
		// Two stores to one object: two executions.
		var o Obj
		store := &event.Label{Kind: event.Store, OKind: event.Atomic, Width: 64}
		h := Go(func() { Op(&o, store, "store"); CheckLocal(key{}, mk) })
		Op(&o, store, "store")
		CheckLocal(key{}, mk)
		Join(*h)
	}
	for check := 1; check <= 2; check++ {
		rep := Run(body, Config{Engine: dfs.New(engine.Config{})})
		if rep.Executions < 2 || rep.Internal != "" {
			t.Fatalf("check %d: %d executions, internal error %q; want several, none", check, rep.Executions, rep.Internal)
		}
		if len(made) != check {
			t.Fatalf("after check %d: %d values made, want %d", check, len(made), check)
		}
		if c := made[check-1].closed; c != 1 {
			t.Errorf("check %d's value closed %d times, want once", check, c)
		}
	}
}
