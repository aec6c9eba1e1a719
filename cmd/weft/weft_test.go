package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"weft.dev/weft/internal/report/reporttest"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"weft": func() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the command end to end on the examples and on small
// modules (testdata/script/*.txtar): go test builds and runs the tests for
// real, so the scripts share this machine's Go caches and fetch nothing.
// The go.mod files of weft's whole module graph are fetched first, as go
// would for a build that needs them: a script whose module requires weft
// loads that graph, and go test ./... on a fresh machine fetches only the
// modules of the packages it builds (golang.org/x/sys is not one).
func TestScripts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs tests of other packages")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dependOnSources(t, root)
	list := exec.Command("go", "list", "-m", "all")
	list.Dir = root
	if out, err := list.CombinedOutput(); err != nil {
		t.Fatalf("go list -m all: %v\n%s", err, out)
	}
	goEnv := map[string]string{}
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		goEnv[[]string{"GOCACHE", "GOMODCACHE", "GOPATH"}[i]] = v
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("WEFT_ROOT", root)
			for k, v := range goEnv {
				env.Setenv(k, v)
			}
			env.Setenv("GOPROXY", "off")
			env.Setenv("GOSUMDB", "off")
			env.Setenv("GOTOOLCHAIN", "local")
			env.Setenv("GOFLAGS", "-mod=mod")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"rerun":     cmdRerun,
			"dotparses": cmdDOTParses,
			"htmlinert": cmdHTMLInert,
		},
	})
}

// rerunLines match the two commands of a report.
var (
	weftLine = regexp.MustCompile(`(?m)^ +weft test -run '([^']+)' -replay (weft3-[A-Za-z0-9_-]+) (\S+)$`)
	goLine   = regexp.MustCompile(`(?m)^ +WEFT_REPLAY=(weft3-[A-Za-z0-9_-]+) go test -run '([^']+)' (\S+)$`)
)

// cmdRerun finds the two commands that rerun a bug in the standard output
// of the last command, checks that they say the same, and sets RUN, TOKEN
// and PKG to their arguments, so that the script runs them as printed.
// For a package that weft test rewrote, only weft test can rerun it: the
// report must have the first command and not the second.
//
//	rerun [rewritten]
func cmdRerun(ts *testscript.TestScript, neg bool, args []string) {
	rewritten := len(args) == 1 && args[0] == "rewritten"
	if neg || len(args) > 1 || len(args) == 1 && !rewritten {
		ts.Fatalf("usage: rerun [rewritten]")
	}
	out := ts.ReadFile("stdout")
	w, g := weftLine.FindStringSubmatch(out), goLine.FindStringSubmatch(out)
	switch {
	case rewritten && (w == nil || g != nil):
		ts.Fatalf("the output of a rewritten package lacks the weft test command that reruns the bug, or has the go test one")
	case !rewritten && (w == nil || g == nil):
		ts.Fatalf("the output lacks the two commands that rerun the bug")
	case !rewritten && (w[1] != g[2] || w[2] != g[1] || w[3] != g[3]):
		ts.Fatalf("the commands differ:\n%s\n%s", w[0], g[0])
	}
	ts.Setenv("RUN", w[1])
	ts.Setenv("TOKEN", w[2])
	ts.Setenv("PKG", w[3])
}

// cmdDOTParses checks that a file is a DOT graph whose title is text:
//
//	dotparses file text
func cmdDOTParses(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: dotparses file title")
	}
	g, err := reporttest.ParseDOT([]byte(ts.ReadFile(args[0])))
	if err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
	if len(g.Labels) == 0 || g.Labels[0] != args[1] {
		ts.Fatalf("%s: the graph's title is %q, want %q", args[0], g.Labels, args[1])
	}
	if len(g.Nodes) == 0 || len(g.Edges) == 0 {
		ts.Fatalf("%s: %d nodes, %d edges", args[0], len(g.Nodes), len(g.Edges))
	}
}

// cmdHTMLInert checks that a file is an inert HTML page that shows text:
//
//	htmlinert file text
func cmdHTMLInert(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: htmlinert file text")
	}
	page := []byte(ts.ReadFile(args[0]))
	text, err := reporttest.CheckHTML(page)
	if err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
	if !strings.Contains(text, args[1]) {
		ts.Fatalf("%s does not show %q", args[0], args[1])
	}
	if !bytes.Contains(page, []byte("<svg")) {
		ts.Fatalf("%s has no graph", args[0])
	}
}

// dependOnSources opens the module's Go files, so that go test's cache
// knows that the result of the scripts, which build them in other
// processes, depends on them.
func dependOnSources(t *testing.T, root string) {
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") && d.Name() != "go.mod" && d.Name() != "go.sum" {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		return f.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestProgressFilter checks which progress lines weft test shows: all of
// them with -progress; without, each check's last line and, while it runs,
// one line every quietEvery.
func TestProgressFilter(t *testing.T) {
	const (
		a      = "weft: example.com/p TestA: 10 executions (5/s), 10 complete, 0 blocked, 2s, graph of 9 events"
		aEnd   = "weft: example.com/p TestA: done: 99 executions (5/s), 99 complete, 0 blocked, 20s, graph of 9 events"
		b      = "weft: example.com/p TestB: 10 executions (5/s), 10 complete, 0 blocked, 2s, graph of 9 events"
		anon   = "weft: 10 executions (5/s), 10 complete, 0 blocked, 2s, graph of 9 events"
		sub    = "weft: example.com/p TestA/a: b: 10 executions (5/s), 10 complete, 0 blocked, 2s, graph of 9 events"
		subEnd = "weft: example.com/p TestA/a: b: done: 12 executions (5/s), 12 complete, 0 blocked, 2s, graph of 9 events"
	)
	type seen struct {
		line string
		at   time.Duration
		want bool
	}
	tests := []struct {
		name  string
		all   bool
		lines []seen
	}{
		{"all", true, []seen{{a, 0, true}, {a, time.Second, true}, {aEnd, 2 * time.Second, true}}},
		{"done", false, []seen{{aEnd, 0, true}}},
		{"quiet", false, []seen{
			{a, 0, false},
			{b, time.Second, false},
			{a, quietEvery - time.Second, false},
			{a, quietEvery, true},
			{b, quietEvery, false},
			{b, quietEvery + time.Second, true},
			{a, quietEvery + 2*time.Second, false},
			{aEnd, quietEvery + 3*time.Second, true},
		}},
		{"unnamed", false, []seen{{anon, 0, false}, {anon, time.Second, false}, {anon, quietEvery, true}}},
		{"subtest with a colon", false, []seen{{sub, 0, false}, {a, time.Second, false}, {sub, quietEvery, true}, {subEnd, quietEvery + time.Second, true}}},
		{"not progress", false, []seen{{"weft: something else", 0, true}}},
		{"unnamed done", false, []seen{{anon, 0, false}, {"weft: done: 10 executions (5/s), 10 complete, 0 blocked, 2s, graph of 9 events", time.Second, true}}},
	}
	start := time.Now()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &progressFilter{all: tt.all, seen: map[string]time.Time{}}
			for i, s := range tt.lines {
				if got := f.keep(s.line, start.Add(s.at)); got != s.want {
					t.Errorf("line %d (%q at %v): kept %v, want %v", i, s.line, s.at, got, s.want)
				}
			}
		})
	}
}
