package weft_test

import (
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
)

// TestTraceEngines: sdpor, mpor, qpor and cdpor find the bug of every program of
// bugPrograms, with a replay token that reproduces it, and none in their
// clean twins.
func TestTraceEngines(t *testing.T) {
	for _, eng := range []string{"sdpor", "mpor", "qpor", "qpor:k=1", "cdpor"} {
		for _, p := range bugPrograms {
			res, _ := exploreWithin(t, p.buggy, weft.WithEngine(eng))
			if res.Engine != eng || len(res.Bugs) == 0 || res.Bugs[0].Kind != p.kind {
				t.Errorf("%s: want a %v, got %+v", eng, p.kind, res)
				continue
			}
			b := res.Bugs[0]
			if b.Trace.String() == "" {
				t.Errorf("%s: the %v has no trace", eng, p.kind)
			}
			rep, _ := exploreWithin(t, p.buggy, weft.WithReplay(b.Replay))
			if len(rep.Bugs) == 0 || rep.Bugs[0].Kind != p.kind {
				t.Errorf("%s: replaying the %v's token %s found %+v", eng, p.kind, b.Replay, rep.Bugs)
			}
			if res, _ := exploreWithin(t, p.clean, weft.WithEngine(eng)); len(res.Bugs) > 0 {
				t.Errorf("%s: a %v in the clean twin: %s", eng, res.Bugs[0].Kind, res.Bugs[0].Message)
			}
		}
	}
}

// TestRedundant: two goroutines storing to different locations are one
// trace; mpor explores it once and drops the other order as a dead end,
// sdpor finds no race to reverse, qpor no conflict, dfs runs all three
// places of x's store.
func TestRedundant(t *testing.T) {
	body := func() {
		var x, y atomic.Int32
		g := weft.Go(func() { x.Store(1) })
		y.Store(1)
		g.Join()
	}
	for _, tt := range []struct {
		engine              string
		complete, redundant int
	}{{"mpor", 1, 1}, {"sdpor", 1, 0}, {"qpor", 1, 0}, {"qpor:k=2", 1, 0}, {"cdpor", 1, 0}, {"dfs", 3, 0}} {
		t.Setenv("WEFT_ENGINE", tt.engine)
		res, _ := exploreWithin(t, body)
		if res.Engine != tt.engine || res.Complete != tt.complete || res.Redundant != tt.redundant || !res.Exhaustive {
			t.Errorf("WEFT_ENGINE=%s: got %+v, want %d complete, %d redundant", tt.engine, res, tt.complete, tt.redundant)
		}
	}
}

// TestQPORAllBugs: with WithAllBugs a bug stops only its goroutine
// (qpor is an engine.Continuer), and every bug's replay token, the
// schedule of its local configuration, reproduces it; a step limit's
// execution of 100,000 loads backtracks as fast as sdpor's.
func TestQPORAllBugs(t *testing.T) {
	for _, p := range bugPrograms {
		res, _ := exploreWithin(t, p.buggy, weft.WithEngine("qpor"), weft.WithAllBugs())
		if len(res.Bugs) == 0 || res.Bugs[0].Kind != p.kind {
			t.Errorf("want a %v, got %+v", p.kind, res.Bugs)
		}
		for _, b := range res.Bugs {
			rep, _ := exploreWithin(t, p.buggy, weft.WithReplay(b.Replay))
			if len(rep.Bugs) == 0 || rep.Bugs[0].Kind != b.Kind {
				t.Errorf("%v: replaying the %v's token %s found %+v", p.kind, b.Kind, b.Replay, rep.Bugs)
			}
		}
	}
}
