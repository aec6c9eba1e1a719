package plain

import (
	weft "weft.dev/weft"
	weftatomic "weft.dev/weft/atomic"
	weftrw "weft.dev/weft/rewritten"
	weftsync "weft.dev/weft/sync"
)

import (
	"fmt"
	_ "sync"
	_ "sync/atomic"
)

// Atomics starts n goroutines that each add one k times to a plain
// variable with atomic.AddInt64, waits for them with a WaitGroup and
// checks the sum with atomic.LoadInt64.
func Atomics(n, k int) {
	var sum int64
	var wg weftsync.WaitGroup
	for range n {
		wg.Add(1)
		weft.Go(func() {
			defer wg.Done()
			for range weftrw.Read(&k) {
				weftatomic.AddInt64(&sum, 1)
			}
		})
	}
	wg.Wait()
	if s := weftatomic.LoadInt64(&sum); s != int64(n*weftrw.Read(&k)) {
		panic(fmt.Sprintf("sum %d, want %d", s, n*weftrw.Read(&k)))
	}
}
