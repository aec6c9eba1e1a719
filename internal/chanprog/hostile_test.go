package chanprog

import (
	"slices"
	"strings"
	"testing"
	"time"

	"weft.dev/weft"
)

// hostileBody is p's Body with its channels shifted by one place in every
// execution, as a program that picks them in a map's iteration order does:
// the program changes when weft replays an execution.
func (p *Program) hostileBody() func() {
	runs := 0
	return func() {
		runs++
		w := p.newWeftObjects()
		k := runs % len(w.chans)
		w.chans = slices.Concat(w.chans[k:], w.chans[:k])
		p.run(w)
	}
}

// alternate returns a body that runs a and b's bodies in turn: a program
// that is another in every execution.
func alternate(a, b *Program) func() {
	runs := 0
	ba, bb := a.Body(), b.Body()
	return func() {
		runs++
		if runs%2 == 0 {
			ba()
		} else {
			bb()
		}
	}
}

// TestHostilePrograms: generated programs whose channels change from one
// execution to the next, and pairs of programs that run in turn, end with
// every engine, with one worker or two, in a report (most often of
// nondeterminism), never in an internal error of weft's or a hang. condpor
// replayed a send on the channel that the recorded execution sent on, and
// failed when the graph did not fit, and mpor indexed out of range (weft
// test on a goroutine per entry of a map of channels); the programs the
// oracle draws are deterministic, and could not have shown it.
func TestHostilePrograms(t *testing.T) {
	n, nondet := 0, 0
	var prev *Program
	for i, p := range programs(11, 150) {
		bodies := map[string]func(){}
		if len(p.Chans) >= 2 {
			bodies["shifted channels"] = p.hostileBody()
		}
		if prev != nil {
			bodies["in turn with the one before"] = alternate(prev, p)
		}
		prev = p
		for what, body := range bodies {
			n++
			for _, eng := range []string{"condpor", "dfs", "sdpor", "mpor", "qpor", "cdpor"} {
				done := make(chan struct{})
				var res weft.Result
				var err error
				go func() {
					defer close(done)
					res, err = weft.Explore(body, weft.WithEngine(eng), weft.WithWorkers(1+i%2), weft.WithMaxExecutions(200))
				}()
				select {
				case <-done:
				case <-time.After(time.Minute):
					t.Fatalf("program %d, %s, %s: still running after a minute:\n%s", i, what, eng, p)
				}
				if err != nil {
					t.Fatalf("program %d, %s, %s: %v\n%s", i, what, eng, err, p)
				}
				for _, b := range res.Bugs {
					if strings.Contains(b.Message, "internal error") {
						t.Fatalf("program %d, %s, %s: %v\n%s", i, what, eng, b, p)
					}
					if b.Kind == weft.Nondeterminism {
						nondet++
					}
				}
			}
		}
	}
	t.Logf("%d programs, %d explorations ended in nondeterminism", n, nondet)
	if nondet == 0 {
		t.Error("no exploration found the programs nondeterministic")
	}
}
