package rewritten

import (
	"os"

	"weft.dev/weft"
	"weft.dev/weft/context"
)

// A check models no signals: none is sent on the channels that the code
// under test registers, and the process handles signals as it did
// (os/signal's handlers are not installed). A test that signals its own
// process to see the channel receive it waits forever, a deadlock, where
// plain Go would have received it. These stand for os/signal's functions
// that take the channels and contexts of rewritten code (oklog/run's
// SignalHandler: signal.Notify(sigc, ...); defer signal.Stop(sigc)).

// SignalNotify is signal.Notify: it sends nothing on c.
func SignalNotify(c *weft.Chan[os.Signal], sig ...os.Signal) {
	if c == nil {
		panic("os/signal: Notify using nil channel")
	}
}

// SignalStop is signal.Stop: c was never sent anything.
func SignalStop(c *weft.Chan[os.Signal]) {}

// SignalNotifyContext is signal.NotifyContext: a context canceled when the
// parent is, or when stop is called, never by a signal.
func SignalNotifyContext(parent context.Context, sig ...os.Signal) (ctx context.Context, stop context.CancelFunc) {
	return context.WithCancel(parent)
}
