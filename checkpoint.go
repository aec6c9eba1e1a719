package weft

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"weft.dev/weft/internal/parallel"
)

// checkpointInterval is the least time between two writes of a
// checkpoint while the exploration runs: a part done is worth a write,
// but not a thousand of them a second.
const checkpointInterval = 10 * time.Second

// interruptedBefore records that an interrupt stopped a checkpointed
// check of this process. An interrupt is the process's: the checks that
// open their checkpoint after it do not run, rather than run on after
// the check that caught it ends (go test runs a package's checks one
// after another: Ctrl-C stopped the one running, and the next started).
var interruptedBefore atomic.Bool

// checkpoint is the checkpoint of a running check (WithCheckpoint).
type checkpoint struct {
	file        string
	fingerprint string
	resume      *parallel.State
	// interrupted is set by an interrupt (SIGINT) or by c.stopAfter: the
	// exploration stops at its next execution.
	interrupted atomic.Bool
	signals     chan os.Signal
	done        chan struct{}
	// progressed says that a write of this run added to the file it
	// resumed from (see note).
	progressed bool
}

// checkpointFile returns the file of c's checkpoint: c.checkpoint, or,
// when that names a directory (one that exists, or a path that ends with
// a separator, made if need be), a file in it named after the check (or,
// for weft.Explore, after the body prog) and its shard, so that one
// directory holds the checkpoints of a package's checks, each in its own
// file.
func checkpointFile(c *config, prog string) (string, error) {
	path := c.checkpoint
	if strings.HasSuffix(path, "/") || strings.HasSuffix(path, string(filepath.Separator)) {
		if err := os.MkdirAll(path, 0o777); err != nil {
			return "", err
		}
	} else if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
		return path, nil
	}
	name := c.name
	if name == "" {
		name = prog
	}
	if c.shards > 1 {
		name += fmt.Sprintf(" shard %d of %d", c.shard, c.shards)
	}
	return filepath.Join(path, fileName(name)+".json"), nil
}

// fileName is name with every rune but ASCII letters, digits, '.', '-'
// and '_' replaced by '_': a file name on any system.
func fileName(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '_'
	}, name)
}

// openCheckpoint reads c's checkpoint file, if there is one, checks that
// it is of this check, and listens for interrupts until close. prog
// names the body (programName).
func openCheckpoint(c *config, prog string) (*checkpoint, error) {
	ck := &checkpoint{file: c.checkpoint, fingerprint: fingerprint(c, prog)}
	s, err := parallel.ReadState(c.checkpoint)
	if err != nil {
		return nil, err
	}
	if s != nil && s.Fingerprint != ck.fingerprint && !strings.HasPrefix(s.Fingerprint, checkPrefix(c)) {
		return nil, fmt.Errorf("%s is the checkpoint of another check (%s), not of this one (%s): a file holds one check; select one with -run, or keep the checkpoints in a directory (a path that ends with %q), a file per check", c.checkpoint, s.Fingerprint, ck.fingerprint, string(filepath.Separator))
	}
	if s != nil && s.Fingerprint != ck.fingerprint {
		return nil, fmt.Errorf("%s is the checkpoint of another exploration (%s), not of this exploration (%s): remove it to start afresh", c.checkpoint, s.Fingerprint, ck.fingerprint)
	}
	if err := parallel.Writable(c.checkpoint); err != nil {
		return nil, fmt.Errorf("%s cannot be written: %w", c.checkpoint, err)
	}
	if interruptedBefore.Load() || c.interruptFile != "" && exists(c.interruptFile) {
		return nil, fmt.Errorf("%w: an interrupt stopped an earlier check of this process; run again to explore, with the checkpoint %s", errNotRun, c.checkpoint)
	}
	ck.resume = s
	ck.signals = make(chan os.Signal, 1)
	ck.done = make(chan struct{})
	signal.Notify(ck.signals, os.Interrupt)
	// weft test keeps the interrupts from go test, which would not print
	// the output of the package it runs, and from its test binaries: it
	// makes a file instead.
	var tick *time.Ticker
	var poll <-chan time.Time
	if c.interruptFile != "" {
		tick = time.NewTicker(interruptPoll)
		poll = tick.C
	}
	go func() {
		if tick != nil {
			defer tick.Stop()
		}
		for {
			select {
			case <-ck.signals:
			case <-poll:
				if !exists(c.interruptFile) {
					continue
				}
			case <-ck.done:
				return
			}
			ck.interrupted.Store(true)
			interruptedBefore.Store(true)
			return
		}
	}()
	return ck, nil
}

// interruptPoll is how often a check looks for weft test's interrupt
// file: an interrupt stops the exploration within about as long.
const interruptPoll = 100 * time.Millisecond

// exists reports whether file exists.
func exists(file string) bool {
	_, err := os.Stat(file)
	return err == nil
}

// errNotRun is the error of a checkpointed check that an interrupt
// before it kept from running.
var errNotRun = errors.New("not run")

// close stops listening for interrupts: the next one ends the process
// as it would have without the check.
func (ck *checkpoint) close() {
	signal.Stop(ck.signals)
	close(ck.done)
}

// note is what a run cut short adds to the reason it stopped: nothing,
// unless it is checkpointed and added nothing to its checkpoint, neither
// a part done nor one begun, which the next run would cut into parts: it
// stopped in the starts that cut the exploration into parts, which every
// run repeats, and a run no longer than this one would get no further.
func (ck *checkpoint) note() string {
	if ck == nil || ck.progressed {
		return ""
	}
	return " (this run added nothing to its checkpoint: it stopped before any part of the exploration ran past the starts that cut it into parts, which every run repeats; give the next run more time than this one)"
}

// checkPrefix is the start of the fingerprint of every exploration of
// c's check.
func checkPrefix(c *config) string { return fmt.Sprintf("check %q, ", c.name) }

// fingerprint identifies the exploration of a check: the check, the
// body, the engine and the options that change the exploration. The
// options that only cut it short (WithTimeout, WithMaxExecutions but for
// the random engine) or share it out (WithWorkers) do not.
func fingerprint(c *config, prog string) string {
	f := checkPrefix(c) + fmt.Sprintf("body at %s, engine %s, solver %s, max steps %d, all bugs %v", prog, c.engine, c.solver, c.maxSteps, c.allBugs)
	if c.shards > 1 {
		f += fmt.Sprintf(", shard %d/%d", c.shard, c.shards)
	}
	if c.engine == "random" {
		// Which executions it samples, and how its parts cut them.
		f += fmt.Sprintf(", seed %d, executions %d", c.seed, c.maxExecutions)
	}
	if d := c.domain; d != nil {
		f += fmt.Sprintf(", domain %d..%d", d[0], d[1])
	}
	return f
}

// config returns the parallel package's configuration of the checkpoint.
func (ck *checkpoint) config(c *config) parallel.Checkpoint {
	return parallel.Checkpoint{
		Resume:   ck.resume,
		Interval: checkpointInterval,
		Save: func(s *parallel.State) error {
			s.Fingerprint = ck.fingerprint
			if err := parallel.WriteState(ck.file, s); err != nil {
				return err
			}
			ck.progressed = ck.progressed || s.Progressed
			return nil
		},
		Interrupted: ck.interrupted.Load,
		Stop: func(n int64) bool {
			if c.stopAfter > 0 && n >= c.stopAfter {
				ck.interrupted.Store(true)
			}
			return ck.interrupted.Load()
		},
	}
}
