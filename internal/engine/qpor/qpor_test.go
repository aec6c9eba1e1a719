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

// TestYield: a spin loop of weft.Yield waits for the write it spins on,
// and one that spins forever is found.
func TestYield(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  bool // the other goroutine sets the flag
	}{
		// One execution each: the wait before the store is not one.
		{"set", true},
		{"never set", false},
	} {
		for _, eng := range []string{"qpor", "qpor:k=1"} {
			res, err := weft.Explore(func() {
				var ready, other atomic.Bool
				weft.Go(func() {
					other.Store(true)
					if tc.set {
						ready.Store(true)
					}
				})
				for !ready.Load() {
					weft.Yield()
				}
			}, weft.WithEngine(eng))
			if err != nil {
				t.Fatal(err)
			}
			spins := len(res.Bugs) == 1 && res.Bugs[0].Kind == weft.Deadlock && strings.Contains(res.Bugs[0].Message, "weft.Yield, spinning")
			if res.Complete != 1 || res.Redundant > 0 || spins == tc.set || tc.set && len(res.Bugs) > 0 {
				t.Errorf("%s %s: %d complete, %d redundant, bugs %v", tc.name, eng, res.Complete, res.Redundant, res.Bugs)
			}
		}
	}
}

// TestChannels checks the executions of channel programs whose traces
// are known, for every k: each trace once, none redundant when optimal.
func TestChannels(t *testing.T) {
	for _, tc := range []struct {
		name   string
		body   func()
		traces int
		bug    weft.BugKind // the kind of the bug every exploration finds, -1 for none
	}{
		{"ping-pong", func() {
			ping, pong := weft.MakeChan[int](0), weft.MakeChan[int](0)
			g := weft.Go(func() {
				for {
					v, ok := ping.Recv()
					if !ok {
						return
					}
					pong.Send(v * 2)
				}
			})
			for i := range 4 {
				ping.Send(i)
				v, _ := pong.Recv()
				weft.Assert(v == 2*i, "wrong reply")
			}
			ping.Close()
			g.Join()
		}, 1, -1},
		{"select between two senders", func() {
			a, b := weft.MakeChan[int](0), weft.MakeChan[int](0)
			weft.Go(func() { a.Send(1) })
			weft.Go(func() { b.Send(2) })
			if weft.Select(a.RecvCase(nil, nil), b.RecvCase(nil, nil)) == 0 {
				b.Recv()
			} else {
				a.Recv()
			}
		}, 2, -1},
		{"producer-consumer", func() {
			c := weft.MakeChan[int](1)
			weft.Go(func() {
				for i := range 3 {
					c.Send(i)
				}
				c.Close()
			})
			for next := 0; ; next++ {
				v, ok := c.Recv()
				if !ok {
					break
				}
				weft.Assert(v == next, "out of order")
			}
		}, 2, -1}, // the last receive of a value before or after the close
		{"close racing a send", func() {
			c := weft.MakeChan[int](1)
			weft.Go(func() { c.Send(1) })
			c.Close()
		}, 2, weft.Panic}, // the send before the close, or after it: a panic
	} {
		for _, eng := range []string{"qpor", "qpor:k=1", "qpor:k=2", "qpor:k=3"} {
			res, err := weft.Explore(tc.body, weft.WithEngine(eng), weft.WithAllBugs())
			if err != nil {
				t.Fatal(err)
			}
			var kinds []weft.BugKind
			for _, b := range res.Bugs {
				kinds = append(kinds, b.Kind)
			}
			switch {
			case res.Complete != tc.traces || !res.Exhaustive:
				t.Errorf("%s %s: %d complete executions, exhaustive %v; want %d", tc.name, eng, res.Complete, res.Exhaustive, tc.traces)
			case tc.bug < 0 && len(kinds) > 0 || tc.bug >= 0 && (len(kinds) != 1 || kinds[0] != tc.bug):
				t.Errorf("%s %s: bugs %v, want kind %v", tc.name, eng, res.Bugs, tc.bug)
			case eng == "qpor" && res.Redundant > 0:
				t.Errorf("%s %s: %d redundant executions, want none", tc.name, eng, res.Redundant)
			}
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
