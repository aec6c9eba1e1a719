package context_test

import (
	"errors"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/context"
	"weft.dev/weft/time"
)

func explore(t *testing.T, body func(), opts ...weft.Option) weft.Result {
	t.Helper()
	res, err := weft.Explore(body, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestCancelPropagates(t *testing.T) {
	res := explore(t, func() {
		parent, cancel := context.WithCancel(context.Background())
		child, stop := context.WithCancel(context.WithValue(parent, "k", "v"))
		defer stop()
		weft.Go(cancel)
		child.Done().Recv()
		weft.Assert(errors.Is(child.Err(), context.Canceled), "child.Err() = %v", child.Err())
		weft.Assert(errors.Is(parent.Err(), context.Canceled), "parent.Err() = %v", parent.Err())
		weft.Assert(child.Value("k") == "v", "value %v", child.Value("k"))
	})
	if len(res.Bugs) > 0 || !res.Exhaustive {
		t.Fatalf("bugs %v", res.Bugs)
	}
}

func TestCause(t *testing.T) {
	errBoom := errors.New("boom")
	res := explore(t, func() {
		ctx, cancel := context.WithCancelCause(context.Background())
		weft.Assert(context.Cause(ctx) == nil, "cause before cancel: %v", context.Cause(ctx))
		cancel(errBoom)
		weft.Assert(context.Cause(ctx) == errBoom, "cause %v", context.Cause(ctx))
		weft.Assert(ctx.Err() == context.Canceled, "err %v", ctx.Err())
	})
	if len(res.Bugs) > 0 {
		t.Fatalf("bugs %v", res.Bugs)
	}
}

func TestTimeoutWithoutCancelIsNoLeak(t *testing.T) {
	// The standard library does not leak a context whose cancel is never
	// called: its timer fires, or is pending when the program ends.
	for _, engine := range []string{"condpor", "dfs"} {
		res := explore(t, func() {
			ctx, _ := context.WithTimeout(context.Background(), time.Second)
			_ = ctx.Err()
		}, weft.WithEngine(engine))
		if len(res.Bugs) > 0 {
			t.Errorf("%s: bugs %v, want none", engine, res.Bugs)
		}
	}
}

func TestDeadlineExceeded(t *testing.T) {
	res := explore(t, func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		d, ok := ctx.Deadline()
		ctx.Done().Recv()
		weft.Assert(ok && !time.Now().Before(d), "done at %v before the deadline %v", time.Now(), d)
		weft.Assert(errors.Is(ctx.Err(), context.DeadlineExceeded), "err %v", ctx.Err())
	})
	if len(res.Bugs) > 0 {
		t.Fatalf("bugs %v", res.Bugs)
	}
}

func TestAfterFunc(t *testing.T) {
	res := explore(t, func() {
		ctx, cancel := context.WithCancel(context.Background())
		ran := weft.MakeChan[struct{}](1)
		context.AfterFunc(ctx, func() { ran.Send(struct{}{}) })
		cancel()
		ran.Recv()
	})
	if len(res.Bugs) > 0 {
		t.Fatalf("bugs %v", res.Bugs)
	}
	// Stopped before the cancel, it never runs: waiting for it deadlocks.
	res = explore(t, func() {
		ctx, cancel := context.WithCancel(context.Background())
		ran := weft.MakeChan[struct{}](1)
		stop := context.AfterFunc(ctx, func() { ran.Send(struct{}{}) })
		weft.Assert(stop(), "stop before cancel")
		cancel()
		ran.Recv()
	})
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.Deadlock {
		t.Fatalf("bugs %v, want a deadlock", res.Bugs)
	}
}

func TestWithoutCancel(t *testing.T) {
	res := explore(t, func() {
		parent, cancel := context.WithCancel(context.WithValue(context.Background(), "k", 1))
		ctx := context.WithoutCancel(parent)
		cancel()
		weft.Assert(ctx.Err() == nil && ctx.Done() == nil && ctx.Value("k") == 1, "WithoutCancel: err %v, value %v", ctx.Err(), ctx.Value("k"))
	})
	if len(res.Bugs) > 0 {
		t.Fatalf("bugs %v", res.Bugs)
	}
}

// TestDeadlineOfCanceledParent: a context with a deadline made from a
// canceled parent is canceled with the parent's error, as in Go, in every
// execution: its timer, set before it joined the parent, could fire first
// and make it DeadlineExceeded.
func TestDeadlineOfCanceledParent(t *testing.T) {
	res := explore(t, func() {
		parent, cancel := context.WithCancelCause(context.Background())
		cancel(errors.New("boom"))
		child, stop := context.WithTimeout(parent, time.Second)
		defer stop()
		weft.Assert(errors.Is(child.Err(), context.Canceled), "child.Err() = %v", child.Err())
		weft.Assert(context.Cause(child).Error() == "boom", "Cause(child) = %v", context.Cause(child))
	})
	if len(res.Bugs) > 0 || res.Complete != 1 {
		t.Errorf("got %+v, want one execution and no bug", res)
	}
}
