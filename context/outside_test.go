package context_test

import (
	"errors"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/context"
	"weft.dev/weft/time"
)

// TestOutside: a context made outside any check (by a test's code around
// its subtests, as weft test runs it) behaves as the standard library's
// there, in virtual time; in each execution of a check it is a context of
// that execution: its deadline passes there or not (both explored), a
// cancel inside cancels it for that execution only, and a cancel before
// the check has it canceled in every execution.
func TestOutside(t *testing.T) {
	errBoom := errors.New("boom")
	base, cancelBase := context.WithTimeout(context.Background(), 10*time.Second)
	withValue := context.WithValue(base, "k", "v")
	ctx, cancel := context.WithCancelCause(withValue)
	if d, ok := ctx.Deadline(); !ok || !d.Equal(time.Now().Add(10*time.Second)) {
		t.Errorf("Deadline() = %v, %v, want 10s from now (virtual)", d, ok)
	}
	if ctx.Err() != nil || ctx.Done() != nil || ctx.Value("k") != "v" {
		t.Errorf("a live context outside: Err %v, Done %v, Value %v", ctx.Err(), ctx.Done(), ctx.Value("k"))
	}

	outcomes := map[string]bool{}
	res := explore(t, func() {
		child, stop := context.WithCancel(ctx)
		defer stop()
		if weft.Select(child.Done().RecvCase(nil, nil), weft.Default()) == 0 {
			weft.Assert(errors.Is(child.Err(), context.DeadlineExceeded), "child.Err() = %v", child.Err())
			outcomes["deadline passed"] = true
			return
		}
		weft.Assert(ctx.Value("k") == "v", "Value(k) = %v", ctx.Value("k"))
		cancel(errBoom)
		child.Done().Recv()
		if errors.Is(context.Cause(child), errBoom) {
			outcomes["canceled inside"] = true
		} else {
			// The deadline passed between the Select and the cancel.
			weft.Assert(errors.Is(child.Err(), context.DeadlineExceeded), "Cause(child) = %v", context.Cause(child))
		}
	}, weft.WithWorkers(1))
	if len(res.Bugs) > 0 || !outcomes["deadline passed"] || !outcomes["canceled inside"] {
		t.Errorf("bugs %v, outcomes %v: want both outcomes and no bug", res.Bugs, outcomes)
	}
	if ctx.Err() != nil {
		t.Errorf("a cancel inside a check canceled the context outside: %v", ctx.Err())
	}

	cancelBase()
	if !errors.Is(ctx.Err(), context.Canceled) || context.Cause(ctx) != context.Canceled {
		t.Errorf("after the parent's cancel outside: Err %v, Cause %v", ctx.Err(), context.Cause(ctx))
	}
	cancel(errBoom)
	if context.Cause(ctx) != context.Canceled {
		t.Errorf("a second cancel changed the cause to %v", context.Cause(ctx))
	}
	res = explore(t, func() {
		ctx.Done().Recv()
		weft.Assert(errors.Is(ctx.Err(), context.Canceled), "Err() = %v", ctx.Err())
		child, stop := context.WithCancel(ctx)
		defer stop()
		child.Done().Recv()
	}, weft.WithWorkers(1))
	if len(res.Bugs) > 0 || !res.Exhaustive {
		t.Errorf("canceled before the check: %+v", res)
	}
}
