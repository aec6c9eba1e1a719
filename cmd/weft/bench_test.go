package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"weft.dev/weft/bench"
)

func TestParseLimit(t *testing.T) {
	tests := []struct {
		in   string
		want bench.Limit
		err  bool
	}{
		{in: "600s", want: bench.Limit{Time: 10 * time.Minute}},
		{in: "1000000", want: bench.Limit{Executions: 1000000}},
		{in: "5000,2m", want: bench.Limit{Executions: 5000, Time: 2 * time.Minute}},
		{in: "0", want: bench.Limit{}},
		{in: "soon", err: true},
		{in: "-5s", err: true},
	}
	for _, tc := range tests {
		got, err := parseLimit(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("parseLimit(%q) = %+v, %v; want %+v, error %v", tc.in, got, err, tc.want, tc.err)
		}
		if err == nil {
			if back, _ := parseLimit(limitString(got)); back != got {
				t.Errorf("limitString(%+v) = %q parses as %+v", got, limitString(got), back)
			}
		}
	}
}

func TestParseBench(t *testing.T) {
	var stderr bytes.Buffer
	c, err := parseBench([]string{"-run", "^Counter", "-engine", "condpor, dfs", "-json"}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.rows) != 11 || len(c.engines) != 2 || c.engines[1] != bench.DFS || !c.json || c.limit.Time != 10*time.Minute {
		t.Errorf("config %+v", c)
	}
	c, err = parseBench([]string{"-quick"}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	quick, all := map[string]bool{}, map[string]bool{}
	for _, b := range c.rows {
		quick[b.Name] = true
	}
	for _, b := range bench.Benchmarks() {
		all[b.Name] = true
	}
	if len(quick) != len(all) {
		t.Errorf("-quick has rows of %d programs, want all %d", len(quick), len(all))
	}
	for _, args := range [][]string{{"-child", "Counter1/2"}, {"-child", "Nothing/1", "-engine", "dfs"}, {"extra"}} {
		if _, err := parseBench(args, &stderr); err == nil {
			t.Errorf("parseBench(%q) accepted", args)
		}
	}
}

// TestRunBench runs rows in this process and checks the table.
func TestRunBench(t *testing.T) {
	c, err := parseBench([]string{"-run", `^(Counter2/3|Sigma/16)$`}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if status := runBench(c, bench.Run, &stdout, &stderr); status != 0 {
		t.Fatalf("status %d: %s", status, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	want := []string{
		"| Counter2 | 3 | condpor | 24 | 24 | 0 |",
		"| Counter2 | 3 | exen | 90 | 90 | 0 |",
		"| Sigma | 16 | condpor | 2 | 2 | 0 |",
	}
	if len(lines) != 4+len(want) {
		t.Fatalf("output:\n%s", stdout.String())
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[4+i], w) {
			t.Errorf("row %d = %q, want prefix %q", i, lines[4+i], w)
		}
	}
	if !strings.HasSuffix(lines[6], "| assertion failed: sum = 15, want 16 |") {
		t.Errorf("Sigma's row does not show its bug: %q", lines[6])
	}
}

func TestChildEnv(t *testing.T) {
	env := childEnv([]string{"HOME=/", "GOGC=50"})
	if strings.Join(env, " ") != "HOME=/ GOGC=50 GOMEMLIMIT=80MiB" {
		t.Errorf("childEnv = %q", env)
	}
}

func TestMarkdownRow(t *testing.T) {
	execs, complete, secs := 1109046, 518400, 10511.0
	slow, fast := 0.4, 263.4
	tests := []struct {
		r    bench.Row
		want string
	}{
		{bench.Row{Benchmark: "CoarseList", Size: "6", Engine: bench.Condpor, Executions: 64116, Complete: 64115, Blocked: 1, Seconds: 1200, PeakMB: 65,
			PaperExecutions: &execs, PaperComplete: &complete, PaperSeconds: &secs, Ratio: &slow},
			"| CoarseList | 6 | condpor | 64116 | 64115 | 1 | 1.2e+03 | 65 | 1109046 | 518400 | 1.051e+04 | 0.4× | stopped by the limit |"},
		{bench.Row{Benchmark: "LBQueue", Size: "3,2", Workload: "50-50", Engine: bench.Condpor, Executions: 120, Complete: 120, Seconds: 0.01, PeakMB: 8, Exhaustive: true, Ratio: &fast},
			"| LBQueue | 3,2 (50-50) | condpor | 120 | 120 | 0 | 0.01 | 8 |  |  |  | 263× |  |"},
		{bench.Row{Benchmark: "Lazy01", Engine: bench.Condpor, Executions: 1, Complete: 1, Bugs: []string{"assertion failed: data = 3"}},
			"| Lazy01 |  | condpor | 1 | 1 | 0 | 0 | 0 |  |  |  |  | assertion failed: data = 3 |"},
		{bench.Row{Benchmark: "Counter1", Size: "6", Engine: bench.ExEn, Executions: 524880, Complete: 524880, Seconds: 15.5, PeakMB: 30, Exhaustive: true, PaperTimeout: true},
			"| Counter1 | 6 | exen | 524880 | 524880 | 0 | 15.5 | 30 |  |  |  |  | JMC: timeout (210 min) |"},
	}
	for _, tc := range tests {
		if got := markdownRow(tc.r); got != tc.want {
			t.Errorf("markdownRow =\n%s\nwant\n%s", got, tc.want)
		}
	}
}

// TestCompareBench: with several engines, weft bench prints a comparison
// table per program, with the redundant executions of each engine and
// the paper's or the thesis's figures under it.
func TestCompareBench(t *testing.T) {
	c, err := parseBench([]string{"-run", `^(Counter1/2|Philosophers/3,1)$`, "-engine", "condpor,sdpor,mpor"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if status := runBench(c, bench.Run, &stdout, &stderr); status != 0 {
		t.Fatalf("status %d: %s", status, stderr.String())
	}
	lines := strings.Split(stdout.String(), "\n")
	// Each line of want is a prefix of the output's line at that index.
	want := []string{
		"weft bench on ",
		"",
		"### Counter1/2",
		"",
		"| engine | executions | complete | blocked | redundant | seconds | peak MB | note |",
		"|---|--:|--:|--:|--:|--:|--:|---|",
		"| condpor | 8 | 8 | 0 | 0 | ",
		"| sdpor | 8 | 8 | 0 | 0 | ",
		"| mpor | 8 | 8 | 0 | ",
		"",
		"JMC (condpor, Table 2): 16 executions, 8 complete, 8 blocked, 0.27 s.",
		"",
		"### Philosophers/3,1",
		"",
		"| engine | executions | complete | blocked | redundant | seconds | peak MB | note |",
		"|---|--:|--:|--:|--:|--:|--:|---|",
		"| condpor | 6 | 6 | 0 | 0 | ",
		"| sdpor | 6 | 6 | 0 | 0 | ",
		"| mpor | 6 | 6 | 0 | 157 | ",
		"",
		"Thesis: n = 4, unbounded rounds: paths NOPOR 2041193 (k = 100), SPOR 882280 (k = 115), MPOR 510520 (k = 130, 487 s).",
		"",
		"",
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), stdout.String())
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) || (w == "" && lines[i] != "") {
			t.Errorf("line %d = %q, want prefix %q", i, lines[i], w)
		}
	}
}

func TestComparisonRow(t *testing.T) {
	tests := []struct {
		r    bench.Row
		want string
	}{
		{bench.Row{Engine: bench.MPOR, Executions: 34, Complete: 34, Redundant: 99, Seconds: 0.0006, PeakMB: 9, Exhaustive: true,
			Bugs: []string{"assertion failed: val = 2, want 4", "assertion failed: val = 3, want 4", "deadlock: all goroutines are blocked"}},
			"| mpor | 34 | 34 | 0 | 99 | 0.0006 | 9 | assertion failed ×2; deadlock |"},
		{bench.Row{Engine: bench.SDPOR, Executions: 100, Complete: 90, Blocked: 10, Redundant: 7, Seconds: 1.5},
			"| sdpor | 100 | 90 | 10 | 7 | 1.5 | 0 | stopped by the limit |"},
	}
	for _, tc := range tests {
		if got := comparisonRow(tc.r); got != tc.want {
			t.Errorf("comparisonRow =\n%s\nwant\n%s", got, tc.want)
		}
	}
}
