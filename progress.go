package weft

import (
	"fmt"
	"io"
	"os"
	"time"

	"weft.dev/weft/internal/runtime"
)

// How often the progress line is shown: rewritten in place on a terminal,
// printed as a new line elsewhere (a CI log), where fewer lines read better.
const (
	liveInterval  = 250 * time.Millisecond
	plainInterval = 2 * time.Second
)

// progress shows how an exploration goes: on a terminal one live line, else
// periodic plain lines; in both cases a last line with the totals.
type progress struct {
	w    io.Writer
	file *os.File // opened for WEFT_PROGRESS=FILE, closed at the end
	live bool     // w is a terminal
	name string   // of the check, or ""
}

// newProgress returns the progress display c asks for, or nil.
func newProgress(c *config) (*progress, error) {
	p := &progress{w: c.progress, name: c.name}
	if c.progressFile != "" {
		f, err := os.OpenFile(c.progressFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("WEFT_PROGRESS: %w", err)
		}
		p.w, p.file = f, f
	}
	if p.w == nil {
		return nil, nil
	}
	p.live = isTerminal(p.w)
	return p, nil
}

// isTerminal reports whether w is a terminal (a character device: a
// terminal or, harmlessly, /dev/null).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// attach makes the exploration of cfg report to p.
func (p *progress) attach(cfg *runtime.Config) {
	if p == nil {
		return
	}
	cfg.Progress = p.update
	cfg.ProgressInterval = plainInterval
	if p.live {
		cfg.ProgressInterval = liveInterval
	}
}

func (p *progress) update(s runtime.Stats) {
	if p.live {
		fmt.Fprintf(p.w, "\r%s\x1b[K", progressLine(p.name, "", s))
		return
	}
	fmt.Fprintln(p.w, progressLine(p.name, "", s))
}

// finish shows the totals of the exploration, and what cut it short
// (cut, "" for nothing).
func (p *progress) finish(s runtime.Stats, cut string) {
	if p == nil {
		return
	}
	line := progressLine(p.name, "done: ", s)
	if cut != "" {
		line += ", not exhaustive: " + cut
	}
	if p.live {
		line = "\r" + line + "\x1b[K"
	}
	fmt.Fprintln(p.w, line)
	if p.file != nil {
		p.file.Close()
	}
}

// progressLine is e.g. "weft: example.com/pkg TestX: 1200 executions
// (4000/s), 1100 complete, 100 blocked, 300ms, graph of 57 events": the
// check's name when it has one, and the graph of the last execution.
func progressLine(name, what string, s runtime.Stats) string {
	rate := 0.0
	if sec := s.Elapsed.Seconds(); sec > 0 {
		rate = float64(s.Executions) / sec
	}
	elapsed := s.Elapsed.Round(time.Millisecond)
	if s.Elapsed > 10*time.Second {
		elapsed = s.Elapsed.Round(time.Second)
	}
	if name != "" {
		name += ": "
	}
	return fmt.Sprintf("weft: %s%s%d executions (%.0f/s), %d complete, %d blocked, %v, graph of %d events",
		name, what, s.Executions, rate, s.Complete, s.Blocked, elapsed, s.Steps)
}
