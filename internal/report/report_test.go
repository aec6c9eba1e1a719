package report_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"weft.dev/weft/internal/chans"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/engine/dfs"
	"weft.dev/weft/internal/event"
	"weft.dev/weft/internal/report"
	"weft.dev/weft/internal/report/reporttest"
	"weft.dev/weft/internal/runtime"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// trace explores a program with dfs, which finds the same first bug every
// time, and describes the bug's execution.
func trace(t *testing.T, body func(), maxSteps int) *report.Trace {
	t.Helper()
	rep := runtime.Run(body, runtime.Config{Engine: dfs.New(engine.Config{}), Trace: true, MaxSteps: maxSteps})
	if len(rep.Bugs) == 0 || rep.Bugs[0].Trace == nil {
		t.Fatalf("no bug with a trace: %+v", rep)
	}
	return report.New(rep.Bugs[0].Trace)
}

// golden compares got with testdata/name, or writes it there with
// -update. Messages of the runtime may hold absolute file names, which
// depend on the checkout: they are made relative.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	got = bytes.ReplaceAll(got, []byte(wd+string(filepath.Separator)), nil)
	file := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what was rendered (go test -update rewrites it):\n%s", file, got)
	}
}

// TestGolden locks the formats: the text table, DOT and HTML of every
// program.
func TestGolden(t *testing.T) {
	for _, p := range programs {
		t.Run(p.name, func(t *testing.T) {
			tr := trace(t, p.body, p.maxSteps)
			golden(t, p.name+".txt", []byte(report.Text(tr)))
			golden(t, p.name+".dot", report.DOT(tr))
			golden(t, p.name+".html", report.HTML(tr))
		})
	}
}

// TestDOT checks that every DOT file parses, has a node per step (and per
// goroutine that had not finished) and edges between them only, and says
// the bug in its title, whatever characters the program's strings have.
func TestDOT(t *testing.T) {
	for _, p := range programs {
		t.Run(p.name, func(t *testing.T) {
			tr := trace(t, p.body, p.maxSteps)
			g, err := reporttest.ParseDOT(report.DOT(tr))
			if err != nil {
				t.Fatal(err)
			}
			unfinished := 0
			for _, gr := range tr.Goroutines {
				if gr.State == "waiting" || gr.State == "blocked" {
					unfinished++
				}
			}
			// A line break in the program's strings is written \n.
			oneLine := strings.NewReplacer("\n", `\n`).Replace
			if len(g.Nodes) != len(tr.Steps)+unfinished {
				t.Errorf("%d nodes for %d steps and %d unfinished goroutines", len(g.Nodes), len(tr.Steps), unfinished)
			}
			for _, e := range g.Edges {
				if g.Nodes[e.From] == nil || g.Nodes[e.To] == nil {
					t.Errorf("edge %s -> %s between unknown nodes", e.From, e.To)
				}
			}
			if want := oneLine(tr.Bug.Kind + ": " + tr.Bug.Message); len(g.Labels) == 0 || g.Labels[0] != want {
				t.Errorf("graph label %q, want %q", g.Labels, want)
			}
			for i, s := range tr.Steps {
				n := g.Nodes[fmt.Sprintf("n%d", i)]
				if !strings.Contains(n["label"], oneLine(s.Op)) {
					t.Errorf("node of step %d is labelled %q, want %q in it", i, n["label"], oneLine(s.Op))
				}
				if s.Failed != (n["color"] != "") {
					t.Errorf("step %d: failed %v, node colored %q", i, s.Failed, n["color"])
				}
			}
		})
	}
}

// TestEdges checks the edges of the lost update: reads-from from the
// stores to the final loads, coherence between the two stores, spawn and
// join.
func TestEdges(t *testing.T) {
	tr := trace(t, programs[0].body, 0)
	g, err := reporttest.ParseDOT(report.DOT(tr))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, e := range g.Edges {
		kinds[e.Attrs["label"]]++
	}
	want := map[string]int{"": 8, "rf": 2, "co": 1, "spawn": 1, "join": 1}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("edges by kind %v, want %v (program order unlabelled)\n%s", kinds, want, report.Text(tr))
	}
}

// TestHTMLInert checks that every page is well formed and inert, and shows
// the program's strings as text: markup in an assertion message or a value
// stays text.
func TestHTMLInert(t *testing.T) {
	for _, p := range programs {
		t.Run(p.name, func(t *testing.T) {
			tr := trace(t, p.body, p.maxSteps)
			page := report.HTML(tr)
			text, err := reporttest.CheckHTML(page)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(text, tr.Bug.Message) {
				t.Errorf("the page does not show the message %q", tr.Bug.Message)
			}
			if bytes.Contains(page, []byte("<script")) || bytes.Contains(page, []byte("<b>")) {
				t.Errorf("markup of the program is in the page")
			}
		})
	}
}

// TestCollapse checks that spinning loops are collapsed into a note and
// other rows are kept.
func TestCollapse(t *testing.T) {
	steps := func(ops ...string) []report.Step {
		var s []report.Step
		for _, op := range ops {
			g := 0
			if strings.HasPrefix(op, "1:") {
				g, op = 1, op[2:]
			}
			s = append(s, report.Step{G: g, Op: op, Pos: "x.go:1"})
		}
		return s
	}
	tests := []struct {
		name  string
		steps []report.Step
		notes []string
		rows  int // rows of steps shown
	}{
		{"none", steps("a", "b", "a", "b"), nil, 4},
		{"twice is kept", steps("a", "a"), nil, 2},
		{"one step", steps("go", "a", "a", "a", "a", "b"), []string{"the step above repeated 3 more times (#3-#5)"}, 3},
		{"two steps", steps("a", "b", "a", "b", "a", "b", "c"), []string{"the 2 steps above repeated 2 more times (#3-#6)"}, 3},
		{"other goroutine", steps("a", "1:a", "a", "1:a"), nil, 4},
		{"two loops", steps("a", "a", "a", "1:b", "1:b", "1:b"), []string{"the step above repeated 2 more times (#2-#3)", "the step above repeated 2 more times (#5-#6)"}, 2},
		// A loop whose steps all differ (Test2Q_RandomOps of golang-lru,
		// stopped by the step limit after 100,000 operations): its first
		// 100 rows and its last 399.
		{"long", distinct(1000), []string{"steps #101-#601 not shown (501 rows); weft test -json records the whole trace"}, 499},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := &report.Trace{Goroutines: []report.Goroutine{{ID: 0, Parent: -1, State: "ended"}, {ID: 1, State: "ended"}}, Steps: tt.steps}
			text := report.Text(tr)
			var notes []string
			rows := 0
			for _, l := range strings.Split(text, "\n") {
				if _, note, ok := strings.Cut(l, "| ... "); ok {
					notes = append(notes, note)
				} else if strings.Contains(l, "x.go:1") {
					rows++
				}
			}
			if !reflect.DeepEqual(notes, tt.notes) || rows != tt.rows {
				t.Errorf("notes %q and %d rows, want %q and %d:\n%s", notes, rows, tt.notes, tt.rows, text)
			}
		})
	}
}

// TestManyGoroutines checks that the goroutines that have no step shown
// get no column when there are many, and that those that wait in the same
// operation at the same place share a line: conc's WaitGroup test, with
// Add moved into the goroutines, fails before any of its 100 has run.
func TestManyGoroutines(t *testing.T) {
	tr := &report.Trace{Bug: report.Bug{Kind: "assertion failed"}}
	tr.Goroutines = append(tr.Goroutines, report.Goroutine{ID: 0, Parent: -1, Func: "p.Test", State: "failed"})
	for i := 1; i <= 12; i++ {
		tr.Goroutines = append(tr.Goroutines, report.Goroutine{ID: i, Func: "p.Go.func1", Spawn: "p.go:3", State: "waiting", Waiting: "add atomic#0", WaitPos: "p.go:4"})
		tr.Steps = append(tr.Steps, report.Step{G: 0, Op: fmt.Sprintf("go g%d", i), Pos: "p.go:3"})
	}
	tr.Goroutines[5].WaitPos = "p.go:5"
	tr.Steps = append(tr.Steps, report.Step{G: 0, Op: "assert failed", Pos: "p_test.go:9", Failed: true})
	text := report.Text(tr)
	for _, want := range []string{
		"\n  g1-g4, g6-g12 (11 goroutines) were about to add atomic#0 at p.go:4\n",
		"\n  g5 was about to add atomic#0 at p.go:5\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "p.Go.func1") {
		t.Errorf("a column for a goroutine that has no step:\n%s", text)
	}
}

// distinct returns n steps that differ from each other.
func distinct(n int) []report.Step {
	s := make([]report.Step, n)
	for i := range s {
		s[i] = report.Step{Op: fmt.Sprintf("store atomic#1 = %d", i), Pos: "x.go:1"}
	}
	return s
}

// TestRecordRoundTrip checks that a trace survives JSON, as the weft
// command draws graphs from the records of other processes.
func TestRecordRoundTrip(t *testing.T) {
	for _, p := range programs {
		tr := trace(t, p.body, p.maxSteps)
		in := report.Record{Package: "p", Test: "T", Bugs: []report.RecordBug{{Kind: tr.Bug.Kind, Trace: tr}}}
		data, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		var out report.Record
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(in, out) || !bytes.Equal(report.HTML(out.Bugs[0].Trace), report.HTML(tr)) {
			t.Errorf("%s: the record changed through JSON", p.name)
		}
	}
}

// TestRender checks that the file name chooses the format.
func TestRender(t *testing.T) {
	tr := trace(t, programs[0].body, 0)
	for name, prefix := range map[string]string{"g.html": "<!DOCTYPE html>", "G.HTM": "<!DOCTYPE html>", "g.dot": "digraph", "g.gv": "digraph"} {
		if got := report.Render(name, tr); !bytes.HasPrefix(got, []byte(prefix)) {
			t.Errorf("Render(%q) starts with %.20q, want %q", name, got, prefix)
		}
	}
}

// TestGraphviz lays the DOT files out with Graphviz when it is installed.
func TestGraphviz(t *testing.T) {
	dot, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("Graphviz is not installed")
	}
	for _, p := range programs {
		cmd := exec.Command(dot, "-Tsvg", "-o", os.DevNull)
		cmd.Stdin = bytes.NewReader(report.DOT(trace(t, p.body, p.maxSteps)))
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Errorf("%s: dot: %v\n%s", p.name, err, out)
		}
	}
}

// TestChromium opens the page of the escaping program in headless Chromium
// and checks that the screenshot shows something. It runs with
// WEFT_CHROMIUM=1 and Debian's chromium package.
func TestChromium(t *testing.T) {
	const chromium = "/usr/bin/chromium"
	if os.Getenv("WEFT_CHROMIUM") == "" {
		t.Skip("set WEFT_CHROMIUM=1 to render the page in headless Chromium")
	}
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("%s is not installed (apt-get install chromium)", chromium)
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "bug.html")
	shot := filepath.Join(dir, "bug.png")
	if err := os.WriteFile(page, report.HTML(trace(t, programs[len(programs)-1].body, 0)), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--screenshot="+shot, "--window-size=1200,800", "file://"+page)
	done := make(chan error, 1)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("chromium: %v\n%s", err, out.String())
		}
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatalf("chromium did not finish in a minute\n%s", out.String())
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if colors := distinctColors(img, 3); colors < 3 {
		t.Errorf("the screenshot has %d colors: the page shows nothing", colors)
	}
}

// distinctColors counts the colors of img, up to limit.
func distinctColors(img image.Image, limit int) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
			if len(seen) >= limit {
				return len(seen)
			}
		}
	}
	return len(seen)
}

// TestOps checks how each kind of operation is put into words, from its
// label and result.
func TestOps(t *testing.T) {
	atomic64 := func(k event.Kind) event.Label {
		return event.Label{Kind: k, OKind: event.Atomic, Width: 64, Obj: 1}
	}
	cas := atomic64(event.RMW)
	cas.Op, cas.A, cas.B = event.CAS, event.Value{N: 1}, event.Value{N: 2}
	add := atomic64(event.RMW)
	add.Op, add.A = event.Add, event.Value{N: ^uint64(0)}
	store := atomic64(event.Store)
	store.A = event.Value{N: 7}
	varStore := event.Label{Kind: event.Store, OKind: event.VarObj, A: event.Value{P: "a\nb"}}
	mutex := func(k event.Kind) event.Label { return event.Label{Kind: k, OKind: event.Mutex, Obj: 2} }
	tests := []struct {
		label  event.Label
		result event.Result
		want   string
	}{
		{atomic64(event.Load), event.Result{V: event.Value{N: 3}, From: 0}, "load atomic#1 = 3 (from #1)"},
		{atomic64(event.Load), event.Result{From: -1}, "load atomic#1 = 0 (initial)"},
		{event.Label{Kind: event.Load, OKind: event.VarObj}, event.Result{From: -1}, "load var#0 = <zero> (initial)"},
		{store, event.Result{}, "store atomic#1 = 7"},
		{varStore, event.Result{}, "store var#0 = a\nb"},
		{cas, event.Result{V: event.Value{N: 1}, OK: true, From: -1}, "CAS atomic#1 1→2 ok (was 1, initial)"},
		{cas, event.Result{V: event.Value{N: 5}, From: 0}, "CAS atomic#1 1→2 failed (was 5, from #1)"},
		{add, event.Result{V: event.Value{N: 4}, OK: true, From: 0}, "add atomic#1 -1 (was 4, from #1)"},
		{mutex(event.Lock), event.Result{From: -1}, "lock mutex#2"},
		{mutex(event.Unlock), event.Result{}, "unlock mutex#2"},
		{mutex(event.TryLock), event.Result{OK: true, From: -1}, "trylock mutex#2 ok"},
		{mutex(event.TryLock), event.Result{From: 0}, "trylock mutex#2 failed"},
		{event.Label{Kind: event.Spawn, Obj: -1, Arg: 3}, event.Result{}, "go g3"},
		{event.Label{Kind: event.Join, Obj: -1, Arg: 3}, event.Result{}, "join g3"},
		{event.Label{Kind: event.End, Obj: -1}, event.Result{}, "return"},
		{event.Label{Kind: event.Block, Obj: -1}, event.Result{}, "assume failed: blocked forever"},
	}
	for _, tt := range tests {
		rt := &runtime.Trace{
			Goroutines: []runtime.GoroutineInfo{{ID: 0, Parent: -1, Status: engine.Ended}},
			Steps:      []runtime.Step{{Label: store}, {Label: tt.label, Result: tt.result}},
		}
		if got := report.New(rt).Steps[1].Op; got != tt.want {
			t.Errorf("%v: got %q, want %q", tt.label.Kind, got, tt.want)
		}
	}
}

// TestSymbolicAndChannelOps checks the words of symbolic branches and
// channel operations. Channels are named by the order they are made in.
func TestSymbolicAndChannelOps(t *testing.T) {
	ch := func(k event.Kind) event.Label { return event.Label{Kind: k, OKind: event.Chan} }
	mk := ch(event.ChanMake)
	mk.B = event.Value{N: 2}
	send := ch(event.ChanSend)
	send.A = event.Value{P: 5}
	nilRecv := ch(event.ChanRecv)
	nilChan := chans.Nil
	nilRecv.B = event.Value{N: uint64(nilChan)}
	cases := []chans.Case{{Chan: 0}, {Chan: 0, Send: true, V: event.Value{P: 7}}}
	sel := event.Label{Kind: event.Select, OKind: event.Chan, A: event.Value{P: cases}, Arg: 1}
	sendWait := ch(event.ChanWait)
	sendWait.Arg = int32(event.ChanSend)
	selWait := ch(event.ChanWait)
	selWait.A = event.Value{P: cases}
	tests := []struct {
		label  event.Label
		result event.Result
		want   string
	}{
		{event.Label{Kind: event.SymNew, Obj: -1}, event.Result{V: event.Value{N: 9}}, "new symbolic input"},
		{event.Label{Kind: event.SymEval, Obj: -1}, event.Result{OK: true}, "symbolic branch: true"},
		{event.Label{Kind: event.SymEval, Obj: -1}, event.Result{}, "symbolic branch: false"},
		{event.Label{Kind: event.SymEval, Obj: -1, Arg: 1}, event.Result{OK: true}, "pin symbolic value (true)"},
		{event.Label{Kind: event.SymChoose, Obj: -1, B: event.Value{N: 3}}, event.Result{V: event.Value{N: 2}}, "symbolic choice: 2 of 3"},
		{mk, event.Result{V: event.Value{N: 1}}, "make chan#2 (capacity 2)"},
		{send, event.Result{}, "send 5 on chan#1"},
		{send, event.Result{Wait: true}, "send 5 on chan#1 (waits)"},
		{ch(event.ChanRecv), event.Result{OK: true, V: event.Value{P: 5}}, "recv chan#1 = 5"},
		{ch(event.ChanRecv), event.Result{}, "recv chan#1: closed"},
		{ch(event.ChanRecv), event.Result{Wait: true}, "recv chan#1 (waits)"},
		{nilRecv, event.Result{Wait: true}, "recv nil chan (waits)"},
		{ch(event.ChanClose), event.Result{}, "close chan#1"},
		{ch(event.ChanLen), event.Result{V: event.Value{N: 1}}, "len chan#1 = 1"},
		{ch(event.ChanWait), event.Result{OK: true, V: event.Value{P: 5}}, "woken on chan#1 = 5"},
		{ch(event.ChanWait), event.Result{}, "woken on chan#1"},
		{sendWait, event.Result{OK: true}, "woken on chan#1: sent"},
		{sel, event.Result{Case: 0, OK: true, V: event.Value{P: 5}}, "select: recv chan#1 = 5"},
		{sel, event.Result{Case: 1}, "select: send 7 on chan#1"},
		{sel, event.Result{Case: 2}, "select: default"},
		{sel, event.Result{Wait: true}, "select (waits)"},
		{selWait, event.Result{Case: 0}, "woken in select: recv chan#1: closed"},
	}
	for _, tt := range tests {
		rt := &runtime.Trace{
			Goroutines: []runtime.GoroutineInfo{{ID: 0, Parent: -1, Status: engine.Ended}},
			// The first step makes channel 0.
			Steps: []runtime.Step{{Label: ch(event.ChanMake)}, {Label: tt.label, Result: tt.result}},
		}
		if got := report.New(rt).Steps[1].Op; got != tt.want {
			t.Errorf("%v: got %q, want %q", tt.label.Kind, got, tt.want)
		}
	}
}
