package parallel_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"weft.dev/weft/bench"
	"weft.dev/weft/internal/concolic"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/parallel"
	"weft.dev/weft/internal/runtime"
	"weft.dev/weft/internal/sym"
)

// checkpointed explores body with the engine name and workers workers,
// with or without allBugs,
// resuming from resume (nil: afresh) and stopping once this run has had
// stop executions (0: never); it returns the report and the last state
// saved.
func checkpointed(t testing.TB, name string, body func(), workers int, allBugs bool, resume *parallel.State, stop int64) (*runtime.Report, *parallel.State, error) {
	t.Helper()
	return cutCheckpointed(t, 0, name, body, workers, allBugs, resume, stop)
}

// cutCheckpointed is checkpointed with the parts cut by earlier runs cut
// into cut parts (0: as many as the exploration's start cuts it into).
func cutCheckpointed(t testing.TB, cut int, name string, body func(), workers int, allBugs bool, resume *parallel.State, stop int64) (*runtime.Report, *parallel.State, error) {
	t.Helper()
	cfg := config(t, name, workers, allBugs)
	var saved *parallel.State
	ck := parallel.Checkpoint{
		Resume: resume,
		Save:   func(s *parallel.State) error { saved = s; return nil },
	}
	if stop > 0 {
		ck.Stop = func(n int64) bool { return n >= stop }
	}
	rep, err := parallel.RunCheckpoint(body, cfg, parallel.CutParts(ck, cut))
	if err == nil && rep.Internal != "" {
		t.Fatalf("internal error: %s", rep.Internal)
	}
	return rep, saved, err
}

// TestCheckpointResume checks that an exploration stopped after k
// executions, for k from the first to the last, and resumed from its
// checkpoint, ends with the counts and bugs of an exploration that was
// never stopped, with 1 and 2 workers; and that a resumed exploration
// stopped again resumes as well.
func TestCheckpointResume(t *testing.T) {
	n := 6
	if testing.Short() {
		n = 2
	}
	// stopped counts the explorations stopped before their end, and
	// partial those stopped with some of their parts done.
	stopped, partial := 0, 0
	// FibBench(true) has some 6,000 executions with condpor, many more
	// than its start: the generated programs may all have fewer.
	// FibBench's bug comes after some 700 executions, in a part that a
	// run stopped near it cut.
	fibs := []program{
		{text: "FibBench(true)", body: bench.FibBench(true), engines: []string{"condpor"}},
		{text: "FibBench", body: bench.FibBench(false), engines: []string{"condpor"}},
	}
	for _, p := range append(programs(t, n), fibs...) {
		for _, name := range checkpointing(p.engines) {
			for _, allBugs := range []bool{false, true} {
				whole := sequential(t, name, p.body, allBugs)
				want := summary(whole)
				for _, workers := range []int{1, 2} {
					for _, k := range []int64{1, int64(whole.Executions) / 2, int64(whole.Executions) - 1, int64(whole.Executions)} {
						first, state, err := checkpointed(t, name, p.body, workers, allBugs, nil, max(k, 1))
						if err != nil || state == nil {
							t.Fatalf("%s, %d workers, stop at %d: state %v, error %v", name, workers, k, state, err)
						}
						if !first.Ended && len(first.Bugs) == 0 {
							stopped++
							if len(state.Done) > 0 {
								partial++
							}
							if state.AllDone {
								t.Errorf("%s, %d workers, stop at %d: a stopped exploration's checkpoint says it is over", name, workers, k)
							}
						}
						// A second stop, half-way through what is left.
						mid, state2, err := checkpointed(t, name, p.body, workers, allBugs, state, int64(first.Executions))
						if err != nil {
							t.Fatalf("%s, %d workers, resumed and stopped: %v", name, workers, err)
						}
						// (A run that has not met the first bug yet counts
						// parts after it, which the run that meets it does
						// not.)
						if (len(whole.Bugs) == 0 || allBugs) && mid.Executions < first.Executions {
							t.Errorf("%s, %d workers: resumed with %d executions, had %d", name, workers, mid.Executions, first.Executions)
						}
						last, final, err := checkpointed(t, name, p.body, workers, allBugs, state2, 0)
						if err != nil {
							t.Fatalf("%s, %d workers, resumed: %v", name, workers, err)
						}
						if got := summary(last); got != want {
							t.Errorf("%s, all bugs %v, %d workers, stopped at %d, resumed twice:\n%s\nwant (never stopped):\n%s\nprogram:\n%s", name, allBugs, workers, k, got, want, p.text)
						}
						if !final.AllDone && len(whole.Bugs) == 0 {
							t.Errorf("%s, %d workers, stopped at %d: the final checkpoint of an exploration without bugs is not exhaustive", name, workers, k)
						}
						// Resuming from the end gives the result again.
						again, _, err := checkpointed(t, name, p.body, workers, allBugs, final, 0)
						if err != nil || summary(again) != want {
							t.Errorf("%s, %d workers, resumed from the end: %v\n%s\nwant:\n%s", name, workers, err, summary(again), want)
						}
					}
				}
			}
		}
	}
	if stopped == 0 || partial == 0 {
		t.Errorf("%d explorations stopped before their end, %d with parts done: want some of each", stopped, partial)
	}
}

// TestCheckpointMismatch checks that a checkpoint of one program is
// refused by another's exploration, as are checkpoints that claim parts
// the exploration does not have.
func TestCheckpointMismatch(t *testing.T) {
	ps := programs(t, 2)
	var a, b program
	for _, p := range ps {
		if whole := sequential(t, "condpor", p.body, true); slices.Contains(p.engines, "condpor") {
			if a.body == nil {
				a = p
			} else if b.body == nil && sequential(t, "condpor", a.body, true).Executions != whole.Executions {
				b = p
			}
		}
	}
	if b.body == nil {
		t.Fatal("no two programs with different counts")
	}
	_, state, err := checkpointed(t, "condpor", a.body, 1, true, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	bad := *state
	bad.Done = []parallel.Done{{Rank: bad.Parts}}
	for _, c := range []struct {
		name  string
		body  func()
		state *parallel.State
	}{
		{"another program", b.body, state},
		{"a part it does not have", a.body, &bad},
	} {
		if _, _, err := checkpointed(t, "condpor", c.body, 1, true, c.state, 0); !errors.Is(err, parallel.ErrMismatch) {
			t.Errorf("%s: error %v, want %v", c.name, err, parallel.ErrMismatch)
		}
	}

	// Runs stopped short of their parts' ends, until one has left a part
	// cut into parts, one of them cut.
	fib := bench.FibBench(true)
	whole := sequential(t, "condpor", fib, false)
	start, state, err := checkpointed(t, "condpor", fib, 1, false, nil, 1)
	nested := func() bool { return len(state.Cut) == 1 && state.Cut[0].Parts > 0 && len(state.Cut[0].Cut) == 1 }
	for runs := 0; err == nil && runs < 100 && !nested(); runs++ {
		_, state, err = cutCheckpointed(t, 3, "condpor", fib, 1, false, state, int64(start.Executions+whole.Executions/50))
	}
	if err != nil || !nested() {
		t.Fatalf("error %v, parts cut %+v: want one, cut into parts, one of them cut", err, state.Cut)
	}
	for _, c := range []struct {
		name   string
		tamper func(s *parallel.State)
	}{
		{"a cut part whose start is not its", func(s *parallel.State) { s.Cut[0].Parts++ }},
		{"a part done and cut", func(s *parallel.State) { s.Done = append(s.Done, parallel.Done{Rank: s.Cut[0].Rank}) }},
		{"a part of a cut part done twice", func(s *parallel.State) { s.Cut[0].Done = append(s.Cut[0].Done, s.Cut[0].Done[0]) }},
		{"a part of a cut part done before its start ran", func(s *parallel.State) { s.Cut[0].Parts, s.Cut[0].Start = 0, parallel.Counts{} }},
	} {
		bad := &parallel.State{Level: state.Level}
		bad.Cut = []*parallel.Cut{{Rank: state.Cut[0].Rank, Level: state.Cut[0].Level}}
		bad.Cut[0].Done = slices.Clone(bad.Cut[0].Done)
		c.tamper(bad)
		if _, _, err := cutCheckpointed(t, 3, "condpor", fib, 1, false, bad, 0); !errors.Is(err, parallel.ErrMismatch) {
			t.Errorf("%s: error %v, want %v", c.name, err, parallel.ErrMismatch)
		}
	}
	if got, _, err := cutCheckpointed(t, 3, "condpor", fib, 1, false, state, 0); err != nil || summary(got) != summary(whole) {
		t.Errorf("resumed from the parts cut: %v, %s", err, summary(got))
	}
}

// TestStateFile checks that a state written is the state read, and that
// a file that is not a checkpoint, or of another version, is an error.
func TestStateFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ckpt")
	if s, err := parallel.ReadState(file); s != nil || err != nil {
		t.Fatalf("missing file: %v, %v; want nil, nil", s, err)
	}
	want := &parallel.State{Version: 1, Fingerprint: "f", Level: parallel.Level{Parts: 3, Done: []parallel.Done{{0, parallel.Counts{Executions: 5, Complete: 4, Blocked: 1}}, {Rank: 2}}}}
	if err := parallel.WriteState(file, want); err != nil {
		t.Fatal(err)
	}
	got, err := parallel.ReadState(file)
	if err != nil || got.Fingerprint != want.Fingerprint || got.Parts != 3 || len(got.Done) != 2 || got.Done[0] != want.Done[0] || got.Done[1] != want.Done[1] {
		t.Fatalf("read %+v, %v; want %+v", got, err, want)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(names) > 0 {
		t.Errorf("temporary files left: %v", names)
	}
	for _, c := range []struct{ name, text string }{
		{"truncated", `{"Version": 1, "Parts"`},
		{"another version", `{"Version": 99}`},
	} {
		if err := os.WriteFile(file, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := parallel.ReadState(file); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

// TestCheckpointAfterBug checks that a resumed exploration that stops at
// a bug does not count the parts after it that the checkpoint has done,
// as several workers may do before they find the bug: it resumes from
// the checkpoint of an exploration with all bugs, where every part
// without a bug is done.
func TestCheckpointAfterBug(t *testing.T) {
	n := 6
	if testing.Short() {
		n = 3
	}
	resumed := 0
	// FibBench's bug comes after some 700 executions of condpor.
	fib := program{text: "FibBench", body: bench.FibBench(false), engines: []string{"condpor"}}
	for _, p := range append(programs(t, n), fib) {
		for _, name := range checkpointing(p.engines) {
			want := sequential(t, name, p.body, false)
			if len(want.Bugs) == 0 {
				continue
			}
			_, all, err := checkpointed(t, name, p.body, 1, true, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := checkpointed(t, name, p.body, 1, false, all, 0)
			if errors.Is(err, parallel.ErrMismatch) {
				continue // the bug is in the start, which then stops short
			}
			if err != nil {
				t.Fatal(err)
			}
			resumed++
			if summary(got) != summary(want) {
				t.Errorf("%s:\n%s\nwant:\n%s\nprogram:\n%s", name, summary(got), summary(want), p.text)
			}
		}
	}
	if resumed == 0 {
		t.Error("no exploration with a bug after its start")
	}
}

// checkpointing returns the engines of names that checkpoint: those whose
// parts are independent.
func checkpointing(names []string) []string {
	var out []string
	for _, name := range names {
		if parallel.Independent(engines[name](engine.Config{Concolic: &concolic.Config{Table: sym.NewTable()}})) {
			out = append(out, name)
		}
	}
	return out
}

// TestCheckpointSaveFails checks that an exploration whose checkpoint
// cannot be saved stops at the failed save, with its error, rather than
// going on unprotected to an end whose result the error would replace.
func TestCheckpointSaveFails(t *testing.T) {
	body := bench.FibBench(true)
	whole := sequential(t, "condpor", body, false)
	full := errors.New("no space left on device")
	for _, workers := range []int{1, 2} {
		saves := 0
		ck := parallel.Checkpoint{Save: func(*parallel.State) error { saves++; return full }}
		rep, err := parallel.RunCheckpoint(body, config(t, "condpor", workers, false), ck)
		if !errors.Is(err, full) {
			t.Errorf("%d workers: error %v, want %v", workers, err, full)
		}
		if saves != 1 {
			t.Errorf("%d workers: %d saves, want 1: none after the one that failed", workers, saves)
		}
		if rep.Ended || rep.Executions >= whole.Executions {
			t.Errorf("%d workers: %d executions (ended %v) of %d: the exploration went on after its save failed", workers, rep.Executions, rep.Ended, whole.Executions)
		}
	}
}

// TestCheckpointProgress checks that runs too short to finish some
// parts still get the exploration done, or to its first bug, with the
// counts of one never stopped: each run stops once it has had a
// fiftieth of the whole exploration's executions after those of the
// exploration's start. The parts cut are cut into 256 parts, as in use,
// with one worker, or into 3, which cuts some of those again, with two.
func TestCheckpointProgress(t *testing.T) {
	// longer counts the explorations with a part longer than a run, and
	// deeper the runs that resumed from a part of a part cut.
	longer, deeper := 0, 0
	// FibBench's bug comes after some 700 executions, in a part that
	// runs after many were cut.
	fibs := []program{
		{text: "FibBench(true)", body: bench.FibBench(true), engines: []string{"condpor"}},
		{text: "FibBench", body: bench.FibBench(false), engines: []string{"condpor"}},
	}
	for _, p := range append(programs(t, 2), fibs...) {
		for _, name := range checkpointing(p.engines) {
			want := sequential(t, name, p.body, false)
			for _, c := range []struct{ workers, cut int }{{1, 0}, {2, 3}} {
				workers, cut := c.workers, c.cut
				start, _, err := checkpointed(t, name, p.body, workers, false, nil, 1)
				if err != nil {
					t.Fatal(err)
				}
				stop := start.Executions + max(want.Executions/50, 1)
				var state *parallel.State
				runs := 0
				for ; runs < 300; runs++ {
					if state != nil && slices.ContainsFunc(state.Cut, func(c *parallel.Cut) bool { return len(c.Cut) > 0 }) {
						deeper++
					}
					var rep *runtime.Report
					rep, state, err = cutCheckpointed(t, cut, name, p.body, workers, false, state, int64(stop))
					if err != nil {
						t.Fatalf("%s, %d workers, run %d: %v", name, workers, runs, err)
					}
					if state.AllDone || len(rep.Bugs) > 0 {
						break
					}
				}
				if !state.AllDone && len(want.Bugs) == 0 {
					t.Errorf("%s, %d workers, cut into %d: not done after %d runs of %d executions\nprogram:\n%s", name, workers, cut, runs, stop, p.text)
					continue
				}
				for _, d := range state.Done {
					if d.Executions > stop {
						longer++
						break
					}
				}
				got, _, err := cutCheckpointed(t, cut, name, p.body, workers, false, state, 0)
				if err != nil || summary(got) != summary(want) {
					t.Errorf("%s, %d workers, cut into %d, %d runs of %d executions: %v\n%s\nwant:\n%s\nprogram:\n%s", name, workers, cut, runs, stop, err, summary(got), summary(want), p.text)
				}
			}
		}
	}
	if longer == 0 || deeper == 0 {
		t.Errorf("%d explorations had a part longer than their runs, %d runs resumed from a part of a part cut: want some of each", longer, deeper)
	}
}

// TestCheckpointCutBug checks that a resumed exploration that meets its
// first bug in the start of a part cut, with the next part cut too (as
// two workers stopped in them leave it), has the counts of one never
// stopped: the parts of a part's start come before the parts split from
// it in the exploration's start.
func TestCheckpointCutBug(t *testing.T) {
	body := bench.FibBench(false)
	want := sequential(t, "condpor", body, false)
	_, state, err := checkpointed(t, "condpor", body, 1, false, nil, int64(want.Executions-1))
	if err != nil {
		t.Fatal(err)
	}
	if len(state.Cut) != 1 {
		t.Fatalf("stopped before the bug: parts cut %v, want 1", state.Cut)
	}
	state.Cut = append(state.Cut, &parallel.Cut{Rank: state.Cut[0].Rank + 1})
	got, _, err := checkpointed(t, "condpor", body, 1, false, state, 0)
	if err != nil || summary(got) != summary(want) {
		t.Errorf("%v\n%s\nwant:\n%s", err, summary(got), summary(want))
	}
}
