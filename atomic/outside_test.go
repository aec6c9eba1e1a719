package atomic_test

import (
	"testing"
	"unsafe"

	"weft.dev/weft/atomic"
)

// TestOutsideChecks checks that the functions on plain variables are
// sync/atomic's outside any check, where code that weft test rewrote runs
// at package initialization and in TestMain.
func TestOutsideChecks(t *testing.T) {
	var i32 int32 = -1
	if atomic.AddInt32(&i32, 2) != 1 || atomic.LoadInt32(&i32) != 1 || !atomic.CompareAndSwapInt32(&i32, 1, -5) || i32 != -5 {
		t.Errorf("int32: %d", i32)
	}
	var u64 uint64 = 6
	if atomic.SwapUint64(&u64, 9) != 6 || atomic.OrUint64(&u64, 2) != 9 || atomic.AndUint64(&u64, 3) != 11 || u64 != 3 {
		t.Errorf("uint64: %d", u64)
	}
	x := 7
	var p unsafe.Pointer
	atomic.StorePointer(&p, unsafe.Pointer(&x))
	if atomic.LoadPointer(&p) != unsafe.Pointer(&x) || !atomic.CompareAndSwapPointer(&p, unsafe.Pointer(&x), nil) || p != nil {
		t.Errorf("pointer: %v", p)
	}
}
