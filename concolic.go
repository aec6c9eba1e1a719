package weft

import (
	"fmt"
	"time"

	"weft.dev/weft/internal/concolic"
	"weft.dev/weft/internal/smt"
	"weft.dev/weft/internal/sym"
)

// concolicSetup holds the symbolic machinery of one exploration: the
// expression table and the solver (the z3 library is loaded here, so that a
// missing one is a configuration error, not a failure mid-exploration).
type concolicSetup struct {
	*concolic.Config
	solver smt.Solver
}

// concolic returns the concolic configuration of c.
func (c *config) concolic() (*concolicSetup, error) {
	// First models are deterministic, which is what ConDPOR needs, and
	// cost one check; least models would also agree between backends.
	s, err := smt.NewWith(c.solver, smt.First)
	if err != nil {
		return nil, fmt.Errorf("WithSolver(%q): %w", c.solver, err)
	}
	return &concolicSetup{Config: &concolic.Config{Table: sym.NewTable(), Solver: s, Domain: c.domain}, solver: s}, nil
}

// stats returns the number of queries and the time spent in the solver.
func (s *concolicSetup) stats() (int, time.Duration) {
	st := s.solver.Stats()
	return st.Queries, st.Time
}

// Close releases the solver.
func (s *concolicSetup) Close() { s.solver.Close() }
