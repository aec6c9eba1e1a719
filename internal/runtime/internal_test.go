package runtime

import (
	"strings"
	"testing"

	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/engine/dfs"
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
