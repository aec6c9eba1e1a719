// Command lazyinit checks a lazily initialized configuration guarded by an
// atomic flag with check-then-act: two goroutines can both see the flag
// unset and both initialize, and a goroutine can see the flag set before the
// configuration is stored.
package main

import (
	"weft.dev/weft"
	"weft.dev/weft/atomic"
	"weft.dev/weft/examples/internal/demo"
)

type lazy struct {
	ready atomic.Bool
	cfg   atomic.Pointer[string]
	loads atomic.Int32 // how many times the configuration was loaded
}

// get returns the configuration, loading it on first use. Broken: use
// sync.Once.
func (l *lazy) get() *string {
	if !l.ready.Load() {
		l.ready.Store(true)
		l.loads.Add(1)
		cfg := "loaded"
		l.cfg.Store(&cfg)
	}
	return l.cfg.Load()
}

// getTwice is the body of the check: two goroutines get the configuration.
func getTwice() {
	var l lazy
	g := weft.Go(func() {
		weft.Assert(l.get() != nil, "got no configuration: the flag was set before it was stored")
	})
	weft.Assert(l.get() != nil, "got no configuration: the flag was set before it was stored")
	g.Join()
	weft.Assert(l.loads.Load() == 1, "the configuration was loaded %d times", l.loads.Load())
}

func main() { demo.Main(getTwice, weft.WithAllBugs()) }
