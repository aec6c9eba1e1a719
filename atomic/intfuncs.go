package atomic

// The integer functions of sync/atomic, on the cells of funcs.go.

// AddInt32 atomically adds delta to *addr and returns the new value.
func AddInt32(addr *int32, delta int32) (new int32) { return add(addr, delta, "AddInt32") }

// AndInt32 atomically performs a bitwise AND operation on *addr using the
// bitmask provided as mask and returns the old value.
func AndInt32(addr *int32, mask int32) (old int32) { return bitwise(addr, mask, false, "AndInt32") }

// CompareAndSwapInt32 executes the compare-and-swap operation for a int32
// value.
func CompareAndSwapInt32(addr *int32, old, new int32) (swapped bool) {
	return cas(addr, old, new, "CompareAndSwapInt32")
}

// LoadInt32 atomically loads *addr.
func LoadInt32(addr *int32) (val int32) { return load(addr, "LoadInt32") }

// OrInt32 atomically performs a bitwise OR operation on *addr using the
// bitmask provided as mask and returns the old value.
func OrInt32(addr *int32, mask int32) (old int32) { return bitwise(addr, mask, true, "OrInt32") }

// StoreInt32 atomically stores val into *addr.
func StoreInt32(addr *int32, val int32) { swap(addr, val, "StoreInt32") }

// SwapInt32 atomically stores new into *addr and returns the previous *addr
// value.
func SwapInt32(addr *int32, new int32) (old int32) { return swap(addr, new, "SwapInt32") }

// AddInt64 atomically adds delta to *addr and returns the new value.
func AddInt64(addr *int64, delta int64) (new int64) { return add(addr, delta, "AddInt64") }

// AndInt64 atomically performs a bitwise AND operation on *addr using the
// bitmask provided as mask and returns the old value.
func AndInt64(addr *int64, mask int64) (old int64) { return bitwise(addr, mask, false, "AndInt64") }

// CompareAndSwapInt64 executes the compare-and-swap operation for a int64
// value.
func CompareAndSwapInt64(addr *int64, old, new int64) (swapped bool) {
	return cas(addr, old, new, "CompareAndSwapInt64")
}

// LoadInt64 atomically loads *addr.
func LoadInt64(addr *int64) (val int64) { return load(addr, "LoadInt64") }

// OrInt64 atomically performs a bitwise OR operation on *addr using the
// bitmask provided as mask and returns the old value.
func OrInt64(addr *int64, mask int64) (old int64) { return bitwise(addr, mask, true, "OrInt64") }

// StoreInt64 atomically stores val into *addr.
func StoreInt64(addr *int64, val int64) { swap(addr, val, "StoreInt64") }

// SwapInt64 atomically stores new into *addr and returns the previous *addr
// value.
func SwapInt64(addr *int64, new int64) (old int64) { return swap(addr, new, "SwapInt64") }

// AddUint32 atomically adds delta to *addr and returns the new value.
func AddUint32(addr *uint32, delta uint32) (new uint32) { return add(addr, delta, "AddUint32") }

// AndUint32 atomically performs a bitwise AND operation on *addr using the
// bitmask provided as mask and returns the old value.
func AndUint32(addr *uint32, mask uint32) (old uint32) {
	return bitwise(addr, mask, false, "AndUint32")
}

// CompareAndSwapUint32 executes the compare-and-swap operation for a uint32
// value.
func CompareAndSwapUint32(addr *uint32, old, new uint32) (swapped bool) {
	return cas(addr, old, new, "CompareAndSwapUint32")
}

// LoadUint32 atomically loads *addr.
func LoadUint32(addr *uint32) (val uint32) { return load(addr, "LoadUint32") }

// OrUint32 atomically performs a bitwise OR operation on *addr using the
// bitmask provided as mask and returns the old value.
func OrUint32(addr *uint32, mask uint32) (old uint32) { return bitwise(addr, mask, true, "OrUint32") }

// StoreUint32 atomically stores val into *addr.
func StoreUint32(addr *uint32, val uint32) { swap(addr, val, "StoreUint32") }

// SwapUint32 atomically stores new into *addr and returns the previous *addr
// value.
func SwapUint32(addr *uint32, new uint32) (old uint32) { return swap(addr, new, "SwapUint32") }

// AddUint64 atomically adds delta to *addr and returns the new value.
func AddUint64(addr *uint64, delta uint64) (new uint64) { return add(addr, delta, "AddUint64") }

// AndUint64 atomically performs a bitwise AND operation on *addr using the
// bitmask provided as mask and returns the old value.
func AndUint64(addr *uint64, mask uint64) (old uint64) {
	return bitwise(addr, mask, false, "AndUint64")
}

// CompareAndSwapUint64 executes the compare-and-swap operation for a uint64
// value.
func CompareAndSwapUint64(addr *uint64, old, new uint64) (swapped bool) {
	return cas(addr, old, new, "CompareAndSwapUint64")
}

// LoadUint64 atomically loads *addr.
func LoadUint64(addr *uint64) (val uint64) { return load(addr, "LoadUint64") }

// OrUint64 atomically performs a bitwise OR operation on *addr using the
// bitmask provided as mask and returns the old value.
func OrUint64(addr *uint64, mask uint64) (old uint64) { return bitwise(addr, mask, true, "OrUint64") }

// StoreUint64 atomically stores val into *addr.
func StoreUint64(addr *uint64, val uint64) { swap(addr, val, "StoreUint64") }

// SwapUint64 atomically stores new into *addr and returns the previous *addr
// value.
func SwapUint64(addr *uint64, new uint64) (old uint64) { return swap(addr, new, "SwapUint64") }

// AddUintptr atomically adds delta to *addr and returns the new value.
func AddUintptr(addr *uintptr, delta uintptr) (new uintptr) { return add(addr, delta, "AddUintptr") }

// AndUintptr atomically performs a bitwise AND operation on *addr using the
// bitmask provided as mask and returns the old value.
func AndUintptr(addr *uintptr, mask uintptr) (old uintptr) {
	return bitwise(addr, mask, false, "AndUintptr")
}

// CompareAndSwapUintptr executes the compare-and-swap operation for a uintptr
// value.
func CompareAndSwapUintptr(addr *uintptr, old, new uintptr) (swapped bool) {
	return cas(addr, old, new, "CompareAndSwapUintptr")
}

// LoadUintptr atomically loads *addr.
func LoadUintptr(addr *uintptr) (val uintptr) { return load(addr, "LoadUintptr") }

// OrUintptr atomically performs a bitwise OR operation on *addr using the
// bitmask provided as mask and returns the old value.
func OrUintptr(addr *uintptr, mask uintptr) (old uintptr) {
	return bitwise(addr, mask, true, "OrUintptr")
}

// StoreUintptr atomically stores val into *addr.
func StoreUintptr(addr *uintptr, val uintptr) { swap(addr, val, "StoreUintptr") }

// SwapUintptr atomically stores new into *addr and returns the previous *addr
// value.
func SwapUintptr(addr *uintptr, new uintptr) (old uintptr) { return swap(addr, new, "SwapUintptr") }
