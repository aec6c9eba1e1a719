package timeprog

import (
	"errors"
	"fmt"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/context"
	"weft.dev/weft/internal/concolic"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/engine/condpor"
	"weft.dev/weft/internal/engine/mpor"
	"weft.dev/weft/time"
)

var errAttempts = errors.New("fetch: no attempt answered in time")

// fetch asks a backend for a value, up to attempts times, each under a
// timeout of 100ms, and gives up when ctx is canceled. The backend
// answers on a channel with room for its reply when capacity is 1; when
// it is 0, the backend of an attempt that timed out blocks forever.
func fetch(ctx context.Context, attempts, capacity int) (int, error) {
	for range attempts {
		actx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		reply := weft.MakeChan[int](capacity)
		weft.Go(func() { reply.Send(42) })
		var v int
		if weft.Select(reply.RecvCase(&v, nil), actx.Done().RecvCase(nil, nil)) == 0 {
			cancel()
			return v, nil
		}
		cancel()
		if err := ctx.Err(); err != nil {
			return 0, err
		}
	}
	return 0, errAttempts
}

// retry is a call of fetch under a context that another goroutine cancels
// after 150ms.
func retry(attempts, capacity int) func() {
	return func() {
		ctx, cancel := context.WithCancel(context.Background())
		weft.Go(func() {
			time.Sleep(150 * time.Millisecond)
			cancel()
		})
		v, err := fetch(ctx, attempts, capacity)
		weft.Assert(err == nil && v == 42 || errors.Is(err, context.Canceled) || err == errAttempts, "fetch: %d, %v", v, err)
	}
}

// classesOf explores body with condpor (checking every graph) or mpor,
// going on past bugs.
func classesOf(t *testing.T, body func(), eng string) *Explored {
	t.Helper()
	x, err := explore(body, 0, func(conc *concolic.Config, on func(uint64)) engine.Engine {
		if eng == "mpor" {
			e := mpor.New(engine.Config{Concolic: conc}).(*mpor.Engine)
			e.OnComplete = on
			return e
		}
		e := condpor.New(engine.Config{Concolic: conc}).(*condpor.Engine)
		e.Verify = true
		e.OnComplete = on
		return e
	})
	if err != nil {
		t.Fatalf("%s: %v", eng, err)
	}
	if !x.Exhaustive {
		t.Fatalf("%s: not explored to the end", eng)
	}
	return x
}

// TestRetryTimeouts explores a retry loop with a timeout per attempt
// under a context canceled by another goroutine. A context's
// cancellation is one modelled location and a timer's firing is the
// cancel it triggers (see weft/context), so the executions differ only in
// what the program can tell apart; before, one attempt cost condpor 1,620
// executions and two more than 300,000. dfs enumerates no more than a few
// classes of one attempt in millions of interleavings (the clock's
// critical sections interleave with everything), so the oracle is mpor,
// which explores each Mazurkiewicz trace exactly once: condpor must
// explore each of its classes, once, and no other (it ran 51 executions
// for the 45 classes of one attempt and 259 for the 194 of two, until a
// select that a revisit moved kept the write that moved it). An attempt
// whose context is made after the cancel sets no timer, as in Go: the
// timer set first had classes where it fired before the attempt's context
// joined the canceled one (45, 194 and 442 classes; now 33, 140, 324).
func TestRetryTimeouts(t *testing.T) {
	for _, c := range []struct {
		attempts   int
		executions int // condpor's
		classes    int
		mpor       bool // three attempts agree with mpor too, in 94 s
	}{
		{1, 33, 33, true},
		{2, 140, 140, true},
		{3, 324, 324, false},
	} {
		t.Run(fmt.Sprintf("attempts=%d", c.attempts), func(t *testing.T) {
			body := retry(c.attempts, 1)
			got := classesOf(t, body, "condpor")
			if len(got.Kinds) > 0 {
				t.Fatalf("condpor finds %v", got.Kinds)
			}
			if got.Executions != c.executions || len(got.Classes) != c.classes {
				t.Errorf("condpor: %d executions in %d classes, want %d in %d", got.Executions, len(got.Classes), c.executions, c.classes)
			}
			if !c.mpor {
				return
			}
			ref := classesOf(t, body, "mpor")
			missed, unseen := 0, 0
			for h := range ref.Classes {
				if got.Classes[h] == 0 {
					missed++
				}
			}
			for h := range got.Classes {
				if ref.Classes[h] == 0 {
					unseen++
				}
			}
			if missed+unseen > 0 || len(ref.Kinds) > 0 {
				t.Errorf("mpor: %d classes, bugs %v; condpor misses %d, explores %d mpor never saw", len(ref.Classes), ref.Kinds, missed, unseen)
			}
		})
	}
}

// TestRetryLeak checks that the retry loop with an unbuffered reply
// channel leaks the backend of an attempt that timed out, and that the
// default engine finds it in its third execution (the first two receive
// the reply).
func TestRetryLeak(t *testing.T) {
	res, err := weft.Explore(retry(1, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.GoroutineLeak {
		t.Fatalf("bugs %v, want a goroutine leak", res.Bugs)
	}
	if res.Executions > 3 {
		t.Errorf("the leak found in %d executions, want 3", res.Executions)
	}
	for _, eng := range []string{"condpor", "mpor"} {
		if x := classesOf(t, retry(2, 0), eng); !x.Kinds[engine.GoroutineLeak] {
			t.Errorf("%s with two attempts: bugs %v, want a goroutine leak", eng, x.Kinds)
		}
	}
}
