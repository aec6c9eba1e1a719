package weft_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"weft.dev/weft"
	"weft.dev/weft/atomic"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// recorder is a testing.TB that keeps what Check reports.
type recorder struct {
	testing.TB
	name   string
	errors []string
	fatal  string
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return r.name }
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatal(args ...any) { r.fatal = fmt.Sprint(args...) }

// elapsed matches the time in the statistics, which changes from run to
// run.
var elapsed = regexp.MustCompile(`(?m)^(statistics: .*\), )[^,]+(, engine)`)

// TestCheckReports locks the format of what Check reports, with golden
// files in testdata/report (go test -update rewrites them). The programs
// run with dfs, whose first bug does not depend on the optimal engine's
// order of exploration.
func TestCheckReports(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range reportPrograms {
		t.Run(p.name, func(t *testing.T) {
			r := &recorder{TB: t, name: "TestReport/" + p.name}
			weft.Check(r, p.body, append([]weft.Option{weft.WithEngine("dfs")}, p.opts...)...)
			if r.fatal != "" || len(r.errors) == 0 {
				t.Fatalf("Check reported %q and %d bugs", r.fatal, len(r.errors))
			}
			got := strings.Join(r.errors, "\n---\n")
			got = elapsed.ReplaceAllString(got, "${1}<elapsed>${2}")
			got = strings.ReplaceAll(got, wd+string(filepath.Separator), "")
			file := filepath.Join("testdata", "report", p.name+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (go test -update writes it)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from the report (go test -update rewrites it):\n%s", file, got)
			}
		})
	}
}

// TestJSONRecords checks the records that WEFT_JSON asks for: one line per
// check, with the fields weft test -json promises.
func TestJSONRecords(t *testing.T) {
	file := filepath.Join(t.TempDir(), "checks.jsonl")
	t.Setenv("WEFT_JSON", file)
	weft.Check(&recorder{TB: t, name: "TestBuggy"}, reportPrograms[0].body)
	weft.Check(&recorder{TB: t, name: "TestClean"}, func() {})
	weft.Check(&recorder{TB: t, name: "TestBad"}, func() {}, weft.WithEngine("nope"))
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(lines) != 3 {
		t.Fatalf("%d records, want 3:\n%s", len(lines), data)
	}
	fields := []string{"blocked", "bugs", "complete", "elapsed_seconds", "engine", "executions", "exhaustive", "package", "solver_calls", "test"}
	for i, test := range []string{"TestBuggy", "TestClean", "TestBad"} {
		var rec map[string]any
		if err := json.Unmarshal(lines[i], &rec); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		want := fields
		if test == "TestBad" {
			want = append(slices.Clone(fields), "error")
			slices.Sort(want)
		}
		if got := slices.Sorted(maps.Keys(rec)); !slices.Equal(got, want) {
			t.Errorf("%s: fields %v, want %v", test, got, want)
		}
		if rec["test"] != test || rec["package"] != "weft.dev/weft" {
			t.Errorf("record %d is of %v in %v, want %s in weft.dev/weft", i, rec["test"], rec["package"], test)
		}
		bugs, _ := rec["bugs"].([]any)
		if (len(bugs) == 1) != (test == "TestBuggy") {
			t.Errorf("%s: bugs %v", test, rec["bugs"])
		}
		for _, b := range bugs {
			bug := b.(map[string]any)
			if got := slices.Sorted(maps.Keys(bug)); !slices.Equal(got, []string{"kind", "message", "replay", "trace"}) {
				t.Errorf("bug fields %v", got)
			}
			if bug["kind"] != "assertion failed" || !strings.HasPrefix(bug["replay"].(string), "weft3-") {
				t.Errorf("bug %v", bug)
			}
			if steps, _ := bug["trace"].(map[string]any)["steps"].([]any); len(steps) == 0 {
				t.Errorf("the trace has no steps: %v", bug["trace"])
			}
		}
	}
}

// TestGraphFile checks that WEFT_GRAPH receives the graph of the first bug
// that the process finds, in the format its name asks for.
func TestGraphFile(t *testing.T) {
	t.Cleanup(weft.ForgetGraph)
	weft.ForgetGraph()
	dir := t.TempDir()
	buggy := reportPrograms[0].body
	first := filepath.Join(dir, "first.dot")
	t.Setenv("WEFT_GRAPH", first)
	explore(t, func() {})
	if _, err := os.Stat(first); err == nil {
		t.Fatal("a check without bugs wrote a graph")
	}
	explore(t, buggy)
	if data, err := os.ReadFile(first); err != nil || !bytes.HasPrefix(data, []byte("digraph")) {
		t.Fatalf("%s: %.20q, %v; want a DOT graph", first, data, err)
	}
	second := filepath.Join(dir, "second.html")
	t.Setenv("WEFT_GRAPH", second)
	explore(t, buggy)
	if _, err := os.Stat(second); err == nil {
		t.Error("the second bug of the process wrote a graph")
	}
	weft.ForgetGraph()
	explore(t, buggy)
	if data, err := os.ReadFile(second); err != nil || !bytes.HasPrefix(data, []byte("<!DOCTYPE html>")) {
		t.Errorf("%s: %.20q, %v; want an HTML page", second, data, err)
	}
	weft.ForgetGraph()
	t.Setenv("WEFT_GRAPH", filepath.Join(dir, "missing", "g.dot"))
	if _, err := weft.Explore(buggy); err == nil || !strings.Contains(err.Error(), "WEFT_GRAPH") {
		t.Errorf("unwritable WEFT_GRAPH: err = %v", err)
	}
}

// progressLine is the format of the progress lines.
var progressLine = regexp.MustCompile(`^weft: (\S+ \S+: )?(done: )?\d+ executions \(\d+/s\), \d+ complete, \d+ blocked, [0-9.]+(µs|ms|s), graph of \d+ events$`)

// TestProgressLines checks the progress lines where there is no terminal:
// plain lines, the last with the totals, to a writer or to WEFT_PROGRESS's
// file.
func TestProgressLines(t *testing.T) {
	body := func() {
		var x atomic.Int32
		for range 3 {
			weft.Go(func() { x.Add(1) })
		}
	}
	var b strings.Builder
	res := explore(t, body, weft.WithProgress(&b), weft.WithEngine("dfs"))
	// A check names itself, so that one can tell which of a run's checks
	// runs long: a line per check, with its package and test.
	var named strings.Builder
	t.Run("named", func(t *testing.T) {
		weft.Check(t, body, weft.WithProgress(&named), weft.WithEngine("dfs"))
	})
	if want := "weft: weft.dev/weft TestProgressLines/named: done: "; !strings.HasPrefix(named.String(), want) {
		t.Errorf("the progress of a check is %q, want it to start with %q", named.String(), want)
	}
	file := filepath.Join(t.TempDir(), "progress")
	t.Setenv("WEFT_PROGRESS", file)
	explore(t, body, weft.WithEngine("dfs"))
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{b.String(), string(data)} {
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		for _, l := range lines {
			if !progressLine.MatchString(l) {
				t.Errorf("progress line %q", l)
			}
		}
		if want := fmt.Sprintf("weft: done: %d executions", res.Executions); !strings.HasPrefix(lines[len(lines)-1], want) {
			t.Errorf("last line %q, want it to start with %q", lines[len(lines)-1], want)
		}
	}
	t.Setenv("WEFT_PROGRESS", "progress.log")
	if _, err := weft.Explore(body); err == nil || !strings.Contains(err.Error(), "WEFT_PROGRESS") {
		t.Errorf("relative WEFT_PROGRESS: err = %v", err)
	}
}
