package sync_test

import (
	"strings"
	"testing"

	"weft.dev/weft/sync"
)

// TestOutsideChecks checks that Mutex, RWMutex and Once work as the
// standard library's outside any check, where code that weft test
// rewrote runs at package initialization and in TestMain.
func TestOutsideChecks(t *testing.T) {
	var mu sync.Mutex
	mu.Lock()
	if mu.TryLock() {
		t.Error("TryLock of a locked mutex succeeded")
	}
	mu.Unlock()
	var rw sync.RWMutex
	rw.RLock()
	rw.RLock()
	if rw.TryLock() {
		t.Error("TryLock of a read-locked RWMutex succeeded")
	}
	rw.RUnlock()
	rw.RUnlock()
	rw.Lock()
	rw.Unlock()
	var once sync.Once
	n := 0
	for range 3 {
		once.Do(func() { n++ })
	}
	if n != 1 {
		t.Errorf("Once called f %d times", n)
	}
}

// TestOutsideLockCommuting: outside a check, LockCommuting locks as Lock
// does, and a class out of range panics with a message that says so.
func TestOutsideLockCommuting(t *testing.T) {
	var mu sync.Mutex
	mu.LockCommuting(1)
	if mu.TryLock() {
		t.Error("TryLock of a mutex locked by LockCommuting succeeded")
	}
	mu.Unlock()
	defer func() {
		if r, ok := recover().(string); !ok || !strings.Contains(r, "the class must be from 1") {
			t.Errorf("LockCommuting(0) panicked with %v", r)
		}
	}()
	mu.LockCommuting(0)
}
