package plain

import (
	weft "weft.dev/weft"
	weftrw "weft.dev/weft/rewritten"
	weftsync "weft.dev/weft/sync"
)

import (
	"fmt"
	_ "sync"
)

// Counter starts n goroutines that each add one to a counter under a
// mutex, waits for them with a WaitGroup and checks the count.
func Counter(n int) {
	var (
		mu    weftsync.Mutex
		count int
		wg    weftsync.WaitGroup
	)
	for range n {
		wg.Add(1)
		weft.Go(func() {
			defer wg.Done()
			mu.Lock()
			*weftrw.Write(&count)++
			mu.Unlock()
		})
	}
	wg.Wait()
	if weftrw.Read(&count) != n {
		panic(fmt.Sprintf("count %d, want %d", weftrw.Read(&count), n))
	}
}
