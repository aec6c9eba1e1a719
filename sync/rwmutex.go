package sync

import (
	gosync "sync"

	"weft.dev/weft/atomic"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/runtime"
)

// RWMutex is a reader/writer mutual exclusion lock, with the standard
// library's algorithm: once a writer waits in Lock, new readers wait behind
// it, so a recursive read lock can deadlock.
type RWMutex struct {
	_           noCopy
	w           Mutex          // held if there are pending writers
	writerSem   sema           // writers wait here for departing readers
	readerSem   sema           // readers wait here for the writer to finish
	readerCount atomic.Int32   // number of pending readers, minus maxReaders while a writer is pending
	readerWait  atomic.Int32   // number of departing readers
	plain       gosync.RWMutex // outside any check (see Mutex)
}

const maxReaders = 1 << 30

// RLock locks rw for reading.
func (rw *RWMutex) RLock() {
	if runtime.Outside() {
		rw.plain.RLock()
		return
	}
	if rw.readerCount.Add(1) < 0 {
		// A writer is pending, wait for it.
		rw.readerSem.acquire()
	}
}

// TryRLock tries to lock rw for reading and reports whether it succeeded.
func (rw *RWMutex) TryRLock() bool {
	if runtime.Outside() {
		return rw.plain.TryRLock()
	}
	for {
		c := rw.readerCount.Load()
		if c < 0 {
			return false
		}
		if rw.readerCount.CompareAndSwap(c, c+1) {
			return true
		}
	}
}

// RUnlock undoes a single RLock call. Without a matching RLock it is a
// Misuse bug.
func (rw *RWMutex) RUnlock() {
	if runtime.Outside() {
		rw.plain.RUnlock()
		return
	}
	if r := rw.readerCount.Add(-1); r < 0 {
		if r+1 == 0 || r+1 == -maxReaders {
			runtime.Fail(engine.Misuse, "RUnlock of unlocked RWMutex")
		}
		// A writer is pending: the last departing reader lets it in.
		if rw.readerWait.Add(-1) == 0 {
			rw.writerSem.release()
		}
	}
}

// Lock locks rw for writing, waiting for the readers to leave.
func (rw *RWMutex) Lock() {
	if runtime.Outside() {
		rw.plain.Lock()
		return
	}
	// First, resolve competition with other writers.
	rw.w.Lock()
	// Announce to readers there is a pending writer.
	r := rw.readerCount.Add(-maxReaders) + maxReaders
	// Wait for active readers.
	if r != 0 && rw.readerWait.Add(r) != 0 {
		rw.writerSem.acquire()
	}
}

// TryLock tries to lock rw for writing and reports whether it succeeded.
func (rw *RWMutex) TryLock() bool {
	if runtime.Outside() {
		return rw.plain.TryLock()
	}
	if !rw.w.TryLock() {
		return false
	}
	if !rw.readerCount.CompareAndSwap(0, -maxReaders) {
		rw.w.Unlock()
		return false
	}
	return true
}

// Unlock unlocks rw for writing. Without a matching Lock it is a Misuse bug.
func (rw *RWMutex) Unlock() {
	if runtime.Outside() {
		rw.plain.Unlock()
		return
	}
	// Announce to readers there is no active writer.
	r := rw.readerCount.Add(maxReaders)
	if r >= maxReaders {
		runtime.Fail(engine.Misuse, "Unlock of unlocked RWMutex")
	}
	// Unblock blocked readers, if any.
	for range r {
		rw.readerSem.release()
	}
	// Allow other writers to proceed.
	rw.w.Unlock()
}

// RLocker returns a Locker that calls rw.RLock and rw.RUnlock.
func (rw *RWMutex) RLocker() Locker { return (*rlocker)(rw) }

type rlocker RWMutex

func (r *rlocker) Lock()   { (*RWMutex)(r).RLock() }
func (r *rlocker) Unlock() { (*RWMutex)(r).RUnlock() }
