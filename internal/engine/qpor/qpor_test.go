package qpor_test

import (
	"fmt"
	"strings"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/bench"
	"weft.dev/weft/internal/engine/qpor"
)

// TestCounts checks the trace counts of DPU's programs (package bench), which qpor
// completes each exactly once for every k, and the redundant (sleep-set
// blocked) executions: none when optimal, and as in the paper's Table 1,
// fewer as k grows, on the programs whose races are entangled (poke,
// dispatcher) but none for any k where they are not (mpat); ssbexp, the
// paper's Fig. 1, needs k = 2 in DPU, but qpor's order of exploration
// (the goroutine that moved last first) finds it optimally from k = 1.
func TestCounts(t *testing.T) {
	for _, tc := range []struct {
		name      string
		body      func()
		traces    int
		entangled bool // k = 1 leaves redundant executions
	}{
		{"ssbexp(2)", bench.SSBExp(2), 4, false},
		{"ssbexp(4)", bench.SSBExp(4), 8, false},
		{"ssbexp(6)", bench.SSBExp(6), 12, false},
		{"mpat(2)", bench.Mpat(2), 8, false},
		{"mpat(3)", bench.Mpat(3), 48, false},
		{"mpat(4)", bench.Mpat(4), 384, false},
		{"poke(2,2)", bench.Poke(2, 2), 14, true},
		{"poke(4,2)", bench.Poke(4, 2), 60, true},
		{"dispatcher(3,2)", bench.Dispatcher(3, 2), 59, true},
		{"dispatcher(5,2)", bench.Dispatcher(5, 2), 137, true},
	} {
		prev := -1
		for _, k := range []int{1, 2, 3, 0} {
			eng := "qpor"
			if k > 0 {
				eng = fmt.Sprintf("qpor:k=%d", k)
			}
			res, err := weft.Explore(tc.body, weft.WithEngine(eng))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s %s: %d complete, %d redundant, %v", tc.name, eng, res.Complete, res.Redundant, res.Elapsed)
			if res.Complete != tc.traces || len(res.Bugs) > 0 || !res.Exhaustive {
				t.Errorf("%s %s: %d complete executions, %d bugs, exhaustive %v; want %d traces", tc.name, eng, res.Complete, len(res.Bugs), res.Exhaustive, tc.traces)
			}
			switch {
			case k == 1 && tc.entangled != (res.Redundant > 0):
				t.Errorf("%s %s: %d redundant executions, want some: %v", tc.name, eng, res.Redundant, tc.entangled)
			case k == 0 && res.Redundant > 0:
				t.Errorf("%s %s: %d redundant executions, want none", tc.name, eng, res.Redundant)
			case prev >= 0 && res.Redundant > prev:
				t.Errorf("%s %s: %d redundant executions, more than with k-1 (%d)", tc.name, eng, res.Redundant, prev)
			}
			prev = res.Redundant
		}
	}
}

// TestUnsupported: channels and weft.Yield are a Misuse bug that says so,
// not an exploration that misses what they do.
func TestUnsupported(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		body       func()
	}{
		{"channel", "qpor does not model channels yet", func() {
			c := weft.MakeChan[int](1)
			g := weft.Go(func() { c.Send(1) })
			c.Recv()
			g.Join()
		}},
		{"yield", "qpor does not model weft.Yield yet", func() {
			var ready atomic.Bool
			weft.Go(func() { ready.Store(true) })
			for !ready.Load() {
				weft.Yield()
			}
		}},
	} {
		res, err := weft.Explore(tc.body, weft.WithEngine("qpor"))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.Misuse || !strings.Contains(res.Bugs[0].Message, tc.want) {
			t.Errorf("%s: bugs %v, want one Misuse saying %q", tc.name, res.Bugs, tc.want)
		}
	}
}

func TestParseOptions(t *testing.T) {
	for _, tc := range []struct {
		in   string
		k    int
		fail string // part of the error, "" for none
	}{
		{"k=1", 1, ""},
		{" k = 3 ", 3, ""},
		{"k=0", 0, "at least 1"},
		{"k=-2", 0, "at least 1"},
		{"k=x", 0, "whole number"},
		{"k", 0, "want key=value"},
		{"", 0, "want key=value"},
		{"depth=2", 0, `unknown key "depth"`},
		{"k=2,k=3", 3, ""},
	} {
		o, err := qpor.ParseOptions(tc.in)
		switch {
		case tc.fail == "" && (err != nil || o.K != tc.k):
			t.Errorf("ParseOptions(%q) = %+v, %v; want k=%d", tc.in, o, err, tc.k)
		case tc.fail != "" && (err == nil || !strings.Contains(err.Error(), tc.fail)):
			t.Errorf("ParseOptions(%q): error %v, want one saying %q", tc.in, err, tc.fail)
		}
	}
}
