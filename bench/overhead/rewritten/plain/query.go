package plain

import (
	weft "weft.dev/weft"
	weftcontext "weft.dev/weft/context"
	weftrw "weft.dev/weft/rewritten"
	weftsync "weft.dev/weft/sync"
)

import (
	_ "context"
	"fmt"
	_ "sync"
	"time"
)

// Query asks n replicas for an answer with a timeout and takes the first:
// each replica selects between sending its answer and the end of the
// context, which the caller cancels once it has an answer or the timeout
// fired, and then waits for them.
func Query(n int) {
	ctx, cancel := weftcontext.WithTimeout(weftcontext.Background(), time.Second)
	answers := weft.MakeChan[int](0)
	var wg weftsync.WaitGroup
	for i := range n {
		wg.Add(1)
		weft.Go(func() {
			defer wg.Done()
			switch weft_s0, weft_s1 := /*line ../../plain/query.go:23:9*/ weftrw.Read(&answers).SendCase(weftrw.Read(&i)) /*line ../../plain/query.go:24:11*/, weftrw.Read(&ctx).Done().RecvCase(nil, nil); /*line ../../plain/query.go:22:4*/ weft.Select(weft_s0, weft_s1) { /*line ../../plain/query.go:22:12*/
			case 0:
			default:
			}
		}) /*line ../../plain/query.go:26:6*/
	}
	got := -1
	switch weft_s0, weft_s1 := weftrw.Receive( /*line ../../plain/query.go:30:14*/ weftrw.Read(&answers)) /*line ../../plain/query.go:32:9*/, weftrw.Read(&ctx).Done().RecvCase(nil, nil); /*line ../../plain/query.go:29:2*/ weft.Select(weft_s0.Case(), weft_s1) { /*line ../../plain/query.go:29:10*/
	case 0:
		a := weft_s0.V
		got = a
	default:
	}
	cancel()
	wg.Wait()
	if err := weftrw.Read(&ctx).Err(); got < 0 && err != weftcontext.DeadlineExceeded || got >= n {
		panic(fmt.Sprintf("answer %d, context %v", got, err))
	}
}
