package rewritten

import (
	"context"
	"time"

	"weft.dev/weft"
	weftcontext "weft.dev/weft/context"
)

// StdContext is ctx, handed to a function of a package that weft test does
// not rewrite, which takes the standard library's context.Context
// (exec.CommandContext, http.NewRequestWithContext): it carries ctx's
// values and is never canceled, as what that function does runs outside
// the checker, which neither explores it nor can tell it when ctx is
// canceled.
func StdContext(ctx weftcontext.Context) context.Context {
	switch c := ctx.(type) {
	case nil:
		return nil
	case weftCtx:
		return c.ctx
	}
	return stdCtx{ctx}
}

// WeftContext is ctx, returned to rewritten code by a function of a
// package that weft test does not rewrite (an *http.Request's Context, a
// testing.T's): it carries ctx's values and is not canceled within an
// execution.
func WeftContext(ctx context.Context) weftcontext.Context {
	switch c := ctx.(type) {
	case nil:
		return nil
	case stdCtx:
		return c.ctx
	}
	return weftCtx{ctx}
}

type stdCtx struct{ ctx weftcontext.Context }

func (stdCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (stdCtx) Done() <-chan struct{}       { return nil }
func (stdCtx) Err() error                  { return nil }
func (c stdCtx) Value(key any) any         { return c.ctx.Value(key) }

type weftCtx struct{ ctx context.Context }

func (weftCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (weftCtx) Done() *weft.Chan[struct{}]  { return nil }
func (weftCtx) Err() error                  { return nil }
func (c weftCtx) Value(key any) any         { return c.ctx.Value(key) }
