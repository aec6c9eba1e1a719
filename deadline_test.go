package weft_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
)

func TestBudget(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		timeout    time.Duration
		left       time.Duration // before the deadline; 0 for none
		want       time.Duration
		atDeadline bool
	}{
		{"no deadline", 0, 0, 0, false},
		{"no deadline, a timeout", 5 * time.Second, 0, 5 * time.Second, false},
		{"go test's default", 0, 10 * time.Minute, 10*time.Minute - 30*time.Second, true},
		{"a twentieth of a minute", 0, time.Minute, time.Minute - 3*time.Second, true},
		{"a second of three", 0, 3 * time.Second, 2 * time.Second, true},
		{"half of a second", 0, time.Second, time.Second / 2, true},
		{"a timeout before the deadline", 5 * time.Second, 10 * time.Minute, 5 * time.Second, false},
		{"a timeout after it", 20 * time.Minute, 10 * time.Minute, 10*time.Minute - 30*time.Second, true},
		{"the deadline passed", 0, -time.Second, time.Nanosecond, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var deadline time.Time
			if tt.left != 0 {
				deadline = now.Add(tt.left)
			}
			got, at := weft.Budget(tt.timeout, deadline, now)
			if got != tt.want || at != tt.atDeadline {
				t.Errorf("budget = %v, %v; want %v, %v", got, at, tt.want, tt.atDeadline)
			}
		})
	}
}

// soonT is a test whose deadline is at, and whose errors are kept.
type soonT struct {
	*testing.T
	at   time.Time
	errs []string
}

func (s *soonT) Deadline() (time.Time, bool) { return s.at, true }

func (s *soonT) Errorf(format string, args ...any) {
	s.errs = append(s.errs, fmt.Sprintf(format, args...))
}

// endless has more executions than any test waits for: 8 goroutines that
// each add twice to one counter.
func endless() {
	var x atomic.Int32
	for range 8 {
		weft.Go(func() {
			x.Add(1)
			x.Add(1)
		})
	}
}

// TestCheckBeforeDeadline: an exploration that go test's deadline would
// cut ends before it, and fails the test with what it explored, rather
// than leave go test to end the process; one that a timeout of its own
// bounds first passes.
func TestCheckBeforeDeadline(t *testing.T) {
	if testing.Short() {
		t.Skip("explores for two seconds")
	}
	st := &soonT{T: t, at: time.Now().Add(3 * time.Second)}
	// The timeout, after the deadline, only ends the test without the
	// deadline's cut.
	res := weft.Check(st, endless, weft.WithTimeout(30*time.Second), weft.WithWorkers(1))
	if res.Exhaustive || res.Executions == 0 {
		t.Fatalf("exhaustive %v after %d executions, want a cut exploration", res.Exhaustive, res.Executions)
	}
	if left := time.Until(st.at); left < 500*time.Millisecond {
		t.Errorf("the check ended %v before its deadline, want about 1 s", left)
	}
	if len(st.errs) != 1 || !strings.Contains(st.errs[0], "did not end before go test's deadline") {
		t.Errorf("errors %q, want one that says the deadline cut the exploration", st.errs)
	}

	st = &soonT{T: t, at: time.Now().Add(time.Minute)}
	res = weft.Check(st, endless, weft.WithTimeout(200*time.Millisecond), weft.WithWorkers(1))
	if res.Exhaustive || len(st.errs) != 0 {
		t.Errorf("with a timeout of its own: exhaustive %v, errors %q; want cut, none", res.Exhaustive, st.errs)
	}
}

// TestTimeoutDuringLongStep: a write after a long run of reads of its
// variable has as many backward revisits to weigh, each against the whole
// execution (puzpuzpuz/xsync's RBMutex tests: 85 s for one store). Once
// the timeout has passed no execution follows, and the check ends soon
// after it rather than after that store.
func TestTimeoutDuringLongStep(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a long execution")
	}
	start := time.Now()
	res, err := weft.Explore(func() {
		var x, y atomic.Int32
		g1 := weft.Go(func() {
			for range 30000 {
				x.Load()
			}
		})
		g2 := weft.Go(func() {
			for range 30000 {
				y.Load()
			}
			x.Store(1) // after g1's loads, which it may revisit
		})
		g1.Join()
		g2.Join()
	}, weft.WithTimeout(200*time.Millisecond), weft.WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the check took %v after a timeout of 200ms (%d executions)", took, res.Executions)
	}
}
