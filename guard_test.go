package weft_test

// Helpers for the tests that the checker never hangs or crashes because of
// the program it checks (goexit_test.go, failnow_test.go, stall_test.go,
// nested_test.go, robust_test.go): such a test runs its checks guarded, so
// that a regression fails it instead of hanging the suite.

import (
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"weft.dev/weft"
)

// guard is the time a guarded check may take before the test fails as
// hanging; correct checks take a fraction of a second.
const guard = 30 * time.Second

// within runs f on a goroutine and fails the test if f has not returned
// within limit. f must report with t.Error, not t.Fatal.
func within(t *testing.T, limit time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(limit):
		buf := make([]byte, 1<<20)
		t.Fatalf("still running after %v: weft hangs\n%s", limit, buf[:goruntime.Stack(buf, true)])
	}
}

// exploreWithin is Explore guarded by within; it also returns how long it
// took.
func exploreWithin(t *testing.T, body func(), opts ...weft.Option) (weft.Result, time.Duration) {
	t.Helper()
	var res weft.Result
	var err error
	start := time.Now()
	within(t, guard, func() { res, err = weft.Explore(body, opts...) })
	if err != nil {
		t.Fatal(err)
	}
	return res, time.Since(start)
}

// engines are the engines the semantics are checked with.
var robustEngines = []string{"dfs", "condpor"}

func oneBug(t *testing.T, res weft.Result, kind weft.BugKind, wants ...string) *weft.Bug {
	t.Helper()
	if len(res.Bugs) != 1 || res.Bugs[0].Kind != kind {
		t.Fatalf("got bugs %v, want one %v", res.Bugs, kind)
	}
	b := res.Bugs[0]
	for _, w := range wants {
		if !strings.Contains(b.Message, w) {
			t.Errorf("the message lacks %q:\n%s", w, b.Message)
		}
	}
	return b
}
