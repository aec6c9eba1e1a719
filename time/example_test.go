package time_test

import (
	"fmt"

	"weft.dev/weft"
	"weft.dev/weft/time"
)

// A reply that races a timeout: weft explores both outcomes, even though
// the replying goroutine never blocks, since a real one may be slow. One
// worker explores, as the body records its outcomes in a map (several
// would run the body at once).
func ExampleAfter() {
	outcomes := map[string]bool{}
	weft.Explore(func() {
		reply := weft.MakeChan[string](1)
		weft.Go(func() { reply.Send("pong") })
		switch weft.Select(reply.RecvCase(nil, nil), time.After(time.Second).RecvCase(nil, nil)) {
		case 0:
			outcomes["reply"] = true
		case 1:
			outcomes["timeout"] = true
		}
	}, weft.WithWorkers(1))
	fmt.Println(outcomes)
	// Output: map[reply:true timeout:true]
}

// The classic time.After leak: the caller gives up after a second, and the
// worker then blocks forever on its unbuffered reply.
func ExampleSleep() {
	res, _ := weft.Explore(func() {
		reply := weft.MakeChan[int](0)
		weft.Go(func() {
			time.Sleep(2 * time.Second)
			reply.Send(42)
		})
		weft.Select(reply.RecvCase(nil, nil), time.After(time.Second).RecvCase(nil, nil))
	})
	fmt.Println(res.Bugs[0].Kind)
	// Output: goroutine leak
}

// Virtual time stands still between timers: a sleep advances Now by
// exactly its duration when no other timer fires meanwhile.
func ExampleNow() {
	weft.Explore(func() {
		start := time.Now()
		time.Sleep(3 * time.Second)
		fmt.Println(time.Since(start), start.Format("2006-01-02"))
	})
	// Output: 3s 2000-01-01
}
