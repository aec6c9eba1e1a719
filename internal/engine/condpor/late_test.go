package condpor_test

import (
	"sync/atomic"
	"testing"

	"weft.dev/weft/bench"
	"weft.dev/weft/internal/engine"
	"weft.dev/weft/internal/engine/condpor"
	"weft.dev/weft/internal/runtime"
)

// lateEngine is condpor in an exploration whose timeout has passed from
// its start: Exec.Late holds from the first execution on.
type lateEngine struct {
	*condpor.Engine
	late atomic.Bool
}

func (l *lateEngine) Begin(x *engine.Exec) bool {
	l.late.Store(true)
	x.Late = &l.late
	return l.Engine.Begin(x)
}

// TestLateNotExhaustive: once the timeout has passed, condpor skips the
// backward revisits, and Begin, which weighs some, may then pop every
// item left; the exploration ends, but it did not explore everything
// (go test's deadline once saw a check of 8 goroutines reported
// exhaustive after 39,327 of its 8·10^10 executions).
func TestLateNotExhaustive(t *testing.T) {
	conc := concolicConfig(t)
	body := bench.GenMCFib(2)
	whole := run(t, body)
	if !whole.Exhaustive {
		t.Fatalf("without a timeout: %d executions, not exhaustive", whole.Executions)
	}
	rep := runtime.Run(body, runtime.Config{Engine: &lateEngine{Engine: condpor.New(engine.Config{Concolic: conc}).(*condpor.Engine)}, Concolic: conc, MaxSteps: 10_000})
	if rep.Executions >= whole.Executions || rep.Exhaustive {
		t.Errorf("late from the start: %d executions (exhaustive %v); want fewer than %d, not exhaustive", rep.Executions, rep.Exhaustive, whole.Executions)
	}
}
