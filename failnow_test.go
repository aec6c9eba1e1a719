package weft_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	goruntime "runtime"
	"strings"
	gosync "sync"
	goatomic "sync/atomic"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
)

// failT is a testing.TB whose FailNow ends the goroutine, as testing's does,
// without failing the test running it.
type failT struct {
	fakeT
	failed goatomic.Bool
	logs   []string
	mu     gosync.Mutex
}

func (f *failT) FailNow() {
	f.failed.Store(true)
	goruntime.Goexit()
}

func (f *failT) Fatalf(format string, args ...any) {
	f.mu.Lock()
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
	f.mu.Unlock()
	f.FailNow()
}

// TestFailNowInBody: t.FailNow (t.Fatal...) in a body or a weft goroutine
// ends that goroutine and is reported as the bug of its execution, with its
// trace; the exploration stops there.
func TestFailNowInBody(t *testing.T) {
	for name, body := range map[string]func(ft *failT) func(){
		"body": func(ft *failT) func() {
			return func() {
				var x atomic.Int32
				g := weft.Go(func() { x.Add(1) })
				if x.Load() == 1 {
					ft.Fatalf("x is %d", x.Load())
				}
				g.Join()
			}
		},
		"goroutine": func(ft *failT) func() {
			return func() {
				var x atomic.Int32
				g := weft.Go(func() {
					if x.Load() == 1 {
						ft.Fatalf("x is %d", x.Load())
					}
				})
				x.Add(1)
				g.Join()
			}
		},
		"deferred call": func(ft *failT) func() {
			return func() {
				var x atomic.Int32
				g := weft.Go(func() {
					defer func() {
						if x.Load() == 1 {
							ft.Fatalf("x is %d", x.Load())
						}
					}()
				})
				x.Add(1)
				g.Join()
			}
		},
	} {
		for _, eng := range robustEngines {
			t.Run(name+"/"+eng, func(t *testing.T) {
				ft := &failT{fakeT: fakeT{TB: t}}
				res, _ := exploreWithin(t, body(ft), weft.WithEngine(eng))
				b := oneBug(t, res, weft.AssertionFailed, "called t.FailNow", "failnow_test.go:")
				if !ft.failed.Load() || len(ft.logs) == 0 || ft.logs[0] != "x is 1" {
					t.Errorf("FailNow not called, or logs %q", ft.logs)
				}
				if b.Replay == "" || len(b.Trace.Steps) == 0 {
					t.Errorf("no trace or token:\n%v", b)
				}
			})
		}
	}
}

// TestRealFailNow runs checks whose bodies call testing's t.Fatal in a test
// process of their own: the test fails with t.Fatal's message and weft's
// report, and the process neither hangs nor crashes.
func TestRealFailNow(t *testing.T) {
	if os.Getenv("WEFT_TEST_FAILNOW") != "" {
		t.Skip("the helper's process")
	}
	for _, where := range []string{"body", "goroutine"} {
		t.Run(where, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), guard)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestFailNowHelper$", "-test.v")
			cmd.Env = append(os.Environ(), "WEFT_TEST_FAILNOW="+where)
			out, err := cmd.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("the helper hangs:\n%s", out)
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("the helper did not fail: %v\n%s", err, out)
			}
			for _, want := range []string{"boom in the " + where, "called t.FailNow", "--- FAIL: TestFailNowHelper", "rerun just this execution"} {
				if !strings.Contains(string(out), want) {
					t.Errorf("the output lacks %q:\n%s", want, out)
				}
			}
			if strings.Contains(string(out), "panic:") {
				t.Errorf("the helper panicked:\n%s", out)
			}
		})
	}
}

// TestFailNowHelper is TestRealFailNow's helper: it fails on purpose.
func TestFailNowHelper(t *testing.T) {
	where := os.Getenv("WEFT_TEST_FAILNOW")
	if where == "" {
		t.Skip("run by TestRealFailNow")
	}
	weft.Check(t, func() {
		var x atomic.Int32
		g := weft.Go(func() {
			if where == "goroutine" && x.Load() == 1 {
				t.Fatal("boom in the goroutine")
			}
		})
		x.Add(1)
		if where == "body" && x.Load() == 1 {
			t.Fatal("boom in the body")
		}
		g.Join()
	})
}
