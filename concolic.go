package weft

import (
	"fmt"
	"time"

	"weft.dev/weft/internal/concolic"
	"weft.dev/weft/internal/smt"
	"weft.dev/weft/internal/sym"
)

// concolicSetup holds the symbolic machinery of one exploration. The solver
// is created on first use, so that programs without symbolic branches load
// no solver (the z3 library in particular).
type concolicSetup struct {
	*concolic.Config
	lazy *lazySolver
}

// concolic returns the concolic configuration of c.
func (c *config) concolic() (*concolicSetup, error) {
	switch c.solver {
	case "builtin", "z3":
	default:
		return nil, fmt.Errorf("WithSolver(%q): unknown solver (available: builtin, z3)", c.solver)
	}
	lazy := &lazySolver{name: c.solver}
	cc := &concolic.Config{Table: sym.NewTable(), Solver: lazy, Domain: c.domain}
	return &concolicSetup{Config: cc, lazy: lazy}, nil
}

// stats returns the number of queries and the time spent in the solver.
func (s *concolicSetup) stats() (int, time.Duration) {
	if s.lazy.s == nil {
		return 0, 0
	}
	st := s.lazy.s.Stats()
	return st.Queries, st.Time
}

// Close releases the solver.
func (s *concolicSetup) Close() { s.lazy.close() }

// lazySolver creates its solver on the first query.
type lazySolver struct {
	name string
	s    smt.Solver
	err  error
}

func (l *lazySolver) get() (smt.Solver, error) {
	if l.s == nil && l.err == nil {
		l.s, l.err = smt.New(l.name)
	}
	return l.s, l.err
}

func (l *lazySolver) Check(tab *sym.Table, terms []sym.Term) (smt.Result, sym.Model, error) {
	s, err := l.get()
	if err != nil {
		return smt.Unknown, sym.Model{}, err
	}
	return s.Check(tab, terms)
}

func (l *lazySolver) close() {
	if l.s != nil {
		l.s.Close()
	}
}
