package sync_test

import (
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
