package sync_test

import (
	"slices"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/sym"
	"weft.dev/weft/sync"
)

// inc adds its argument to the state's first integer and returns the sum.
func inc(s, a []sym.Int) []sym.Int {
	s[0] = s[0].Add(a[0])
	return []sym.Int{s[0]}
}

// TestMonitorRuns checks that sections run their effect on the state, one
// at a time, under every engine: two goroutines add 1 and 2 to 10, each
// section gets back the sum after it, and the last 13.
func TestMonitorRuns(t *testing.T) {
	for _, engine := range []string{"condpor", "dfs", "sdpor", "cdpor"} {
		var seen [][2]int64
		res := explore(t, func() {
			m := sync.NewMonitor(10)
			add := m.Declare(1, inc)
			var a int64
			g := weft.Go(func() { a = add.Do(1)[0] })
			b := add.Do(2)[0]
			g.Join()
			weft.Assert(max(a, b) == 13, "results %d and %d", a, b)
			seen = append(seen, [2]int64{a, b})
		}, weft.WithEngine(engine))
		if len(res.Bugs) > 0 {
			t.Errorf("%s: %s", engine, res.Bugs[0].Message)
		}
		slices.SortFunc(seen, func(x, y [2]int64) int { return int(x[0] - y[0]) })
		seen = slices.Compact(seen)
		// Two increments always commute, but their results show the
		// order: every engine sees both.
		if want := [][2]int64{{11, 13}, {13, 12}}; !slices.Equal(seen, want) {
			t.Errorf("%s: results %v, want %v", engine, seen, want)
		}
	}
}

// TestMonitorMisuse checks the misuses a Monitor reports.
func TestMonitorMisuse(t *testing.T) {
	for name, body := range map[string]func(){
		"arguments": func() {
			m := sync.NewMonitor(0)
			m.Declare(1, inc).Do()
		},
		"declared late": func() {
			m := sync.NewMonitor(0)
			m.Declare(1, inc).Do(1)
			m.Declare(1, inc)
		},
	} {
		res := explore(t, body)
		if len(res.Bugs) != 1 || res.Bugs[0].Kind != weft.Misuse {
			t.Errorf("%s: bugs %v, want a misuse", name, res.Bugs)
		}
	}
}
