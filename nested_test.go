package weft_test

import (
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
)

// TestNestedCheck: Check or Explore inside a body is a Misuse bug of the
// outer check, never a wait for the outer check to end.
func TestNestedCheck(t *testing.T) {
	for name, c := range map[string]struct {
		body func()
		want string
	}{
		"Explore in the body": {func() { weft.Explore(func() {}) }, "weft.Explore called inside a check: nested checks are not supported"},
		"Check in the body":   {func() { weft.Check(&fakeT{TB: t}, func() {}) }, "weft.Check called inside a check: nested checks are not supported"},
		"Explore in a goroutine": {func() {
			var x atomic.Int32
			g := weft.Go(func() {
				x.Add(1)
				weft.Explore(func() {})
			})
			x.Add(1)
			g.Join()
		}, "weft.Explore called inside a check"},
		"Explore in a stray": {func() {
			done := make(chan bool)
			go func() {
				defer close(done)
				weft.Explore(func() {})
			}()
			<-done
			var x atomic.Int32
			x.Add(1)
		}, "weft.Explore was called at"},
	} {
		t.Run(name, func(t *testing.T) {
			for _, eng := range robustEngines {
				res, _ := exploreWithin(t, c.body, weft.WithEngine(eng))
				oneBug(t, res, weft.Misuse, c.want)
			}
		})
	}
	// The process is still usable.
	res, _ := exploreWithin(t, bugPrograms[0].clean)
	if len(res.Bugs) != 0 || !res.Exhaustive {
		t.Errorf("after the nested checks: %+v", res)
	}
}
