package sync

import (
	gosync "sync"

	"weft.dev/weft/atomic"
	"weft.dev/weft/internal/runtime"
)

// Once performs exactly one action, with the standard library's algorithm: a
// fast path on an atomic flag, and a mutex for the slow path.
type Once struct {
	_     noCopy
	done  atomic.Uint32
	m     Mutex
	plain gosync.Once // outside any check (see Mutex)
}

// Do calls f if and only if Do is being called for the first time for this
// instance of Once. No call to Do returns until the one call to f returns.
// Outside any check, o is a separate Once of the standard library: each
// execution of a check calls f again on its first Do.
func (o *Once) Do(f func()) {
	if runtime.Outside() {
		o.plain.Do(f)
		return
	}
	if o.done.Load() == 0 {
		o.doSlow(f)
	}
}

func (o *Once) doSlow(f func()) {
	o.m.Lock()
	defer o.m.Unlock()
	if o.done.Load() == 0 {
		defer o.done.Store(1)
		f()
	}
}
