// Package sym represents the symbolic values of concolic exploration as a
// hash-consed expression DAG.
//
// A symbolic input is a 64-bit two's-complement integer with the semantics of
// Go's int64; expressions over inputs have sort Int, and comparisons and
// their boolean combinations have sort Bool. Expressions live in a Table and
// are named by Terms, small integers that index the Table.
//
// # Hash-consing
//
// Every constructor first simplifies its result and then looks the
// resulting node up in the Table, so building the same expression twice
// yields the same Term and a Table that sees the same expressions on every
// execution of an exploration stops growing. Term equality is therefore a
// cheap, sound (but incomplete) test of semantic equality, and the solver
// layer can key its caches on Terms.
//
// Children are always created before their parents, so a Term's operands
// have smaller numbers than the Term itself. Evaluation and the solver
// layer rely on this to process sub-DAGs in increasing Term order without
// recursion.
//
// # Simplification
//
// Constructors fold constants, drop neutral elements, apply absorbing
// elements, reassociate constants into a single operand, and put the
// operands of commutative operations in a canonical order (non-constant
// operands by Term number, a constant operand last). Some operations are
// expressed by others: Gt and Ge swap the operands of Lt and Le, Ne is the
// negation of Eq, a strict comparison against a constant becomes a
// non-strict one, and a negated comparison becomes the opposite comparison.
// Every rewrite is an identity of the int64 semantics documented on the
// constructors, including the zero-divisor and shift-count conventions, and
// is checked against a reference evaluator by the package's tests.
package sym

import (
	"fmt"
	"maps"
	"math"
	"slices"
)

// Term names an expression in a Table. The zero Term is invalid.
type Term uint32

// Sort is the type of a term.
type Sort uint8

// The sorts of terms.
const (
	InvalidSort Sort = iota
	// Int is the sort of 64-bit two's-complement integers (Go's int64).
	Int
	// Bool is the sort of truth values.
	Bool
)

// String returns "Int", "Bool" or "invalid".
func (s Sort) String() string {
	switch s {
	case Int:
		return "Int"
	case Bool:
		return "Bool"
	}
	return "invalid"
}

// Op identifies the operation of a node. Only the operations listed here
// occur in a Table: Ne, Gt and Ge are rewritten into the others.
type Op uint8

// The operations of nodes. Int operations take and return Int terms,
// comparisons take Int terms and return Bool, and the boolean connectives
// take and return Bool terms.
const (
	OpInvalid Op = iota
	OpFalse      // Bool constant false
	OpTrue       // Bool constant true
	OpConst      // Int constant; Node.Value holds it
	OpVar        // Int variable; Node.Value holds its id
	OpAdd        // a + b
	OpSub        // a - b
	OpMul        // a * b
	OpDiv        // a / b
	OpRem        // a % b
	OpNeg        // -a
	OpAnd        // a & b
	OpOr         // a | b
	OpXor        // a ^ b
	OpShl        // a << b
	OpShr        // a >> b
	OpIte        // if a then b else c, on Int b and c
	OpEq         // a == b
	OpLt         // a < b
	OpLe         // a <= b
	OpNot        // !a
	OpBAnd       // a && b
	OpBOr        // a || b
	numOps
)

var opInfo = [numOps]struct {
	name  string
	arity int
	sort  Sort
}{
	OpFalse: {"false", 0, Bool},
	OpTrue:  {"true", 0, Bool},
	OpConst: {"const", 0, Int},
	OpVar:   {"var", 0, Int},
	OpAdd:   {"+", 2, Int},
	OpSub:   {"-", 2, Int},
	OpMul:   {"*", 2, Int},
	OpDiv:   {"/", 2, Int},
	OpRem:   {"%", 2, Int},
	OpNeg:   {"-", 1, Int},
	OpAnd:   {"&", 2, Int},
	OpOr:    {"|", 2, Int},
	OpXor:   {"^", 2, Int},
	OpShl:   {"<<", 2, Int},
	OpShr:   {">>", 2, Int},
	OpIte:   {"ite", 3, Int},
	OpEq:    {"==", 2, Bool},
	OpLt:    {"<", 2, Bool},
	OpLe:    {"<=", 2, Bool},
	OpNot:   {"!", 1, Bool},
	OpBAnd:  {"&&", 2, Bool},
	OpBOr:   {"||", 2, Bool},
}

// String returns the operator's symbol, or a name for the leaves.
func (o Op) String() string {
	if o == OpInvalid || o >= numOps {
		return "invalid"
	}
	return opInfo[o].name
}

// Arity returns the number of operands of o.
func (o Op) Arity() int {
	if o >= numOps {
		return 0
	}
	return opInfo[o].arity
}

// Node is the content of a term: its operation, operands and, for
// constants and variables, the value or the variable id.
type Node struct {
	Op    Op
	Args  [3]Term // the first Op.Arity() are used, the rest are 0
	Value int64   // the constant for OpConst, the id for OpVar, else 0
}

// Table holds hash-consed terms. The zero Table is ready to use. A Table is
// not safe for concurrent use, including by its read-only looking methods
// such as Eval and Vars, which use scratch space inside the Table.
type Table struct {
	nodes []Node
	index map[Node]Term

	// Scratch space for traversals, indexed by Term: a traversal owns the
	// marks equal to the current epoch, so no clearing is needed between
	// traversals.
	epoch uint32
	mark  []uint32
	vals  []int64
	stack []Term
}

// NewTable returns an empty Table.
func NewTable() *Table {
	t := &Table{}
	t.init()
	return t
}

// Clone returns a copy of t whose terms are t's, under the same Terms, and
// that grows independently of t.
func (t *Table) Clone() *Table {
	t.ensure()
	return &Table{nodes: slices.Clone(t.nodes), index: maps.Clone(t.index)}
}

// True and False are interned first, so they have fixed Terms.
const (
	falseTerm Term = 1
	trueTerm  Term = 2
)

// ensure makes the zero Table ready for use.
func (t *Table) ensure() {
	if t.index == nil {
		t.init()
	}
}

func (t *Table) init() {
	t.nodes = make([]Node, 1, 64)
	t.index = make(map[Node]Term, 64)
	t.intern(Node{Op: OpFalse})
	t.intern(Node{Op: OpTrue})
}

func (t *Table) intern(n Node) Term {
	t.ensure()
	if x, ok := t.index[n]; ok {
		return x
	}
	if len(t.nodes) > math.MaxUint32 {
		panic("sym: table full")
	}
	x := Term(len(t.nodes))
	t.nodes = append(t.nodes, n)
	t.index[n] = x
	return x
}

// Len returns the number of terms in t; valid Terms range over 1..Len().
func (t *Table) Len() int {
	t.ensure()
	return len(t.nodes) - 1
}

func (t *Table) node(x Term) *Node {
	if x == 0 || int(x) >= len(t.nodes) {
		panic(fmt.Sprintf("sym: invalid term %d", x))
	}
	return &t.nodes[x]
}

// Node returns the content of x. It panics if x is not a term of t.
func (t *Table) Node(x Term) Node { return *t.node(x) }

// Op returns the operation of x.
func (t *Table) Op(x Term) Op { return t.node(x).Op }

// Sort returns the sort of x.
func (t *Table) Sort(x Term) Sort { return opInfo[t.node(x).Op].sort }

// IsConst reports whether x is an Int constant, and its value.
func (t *Table) IsConst(x Term) (int64, bool) {
	n := t.node(x)
	return n.Value, n.Op == OpConst
}

// IsBoolConst reports whether x is a Bool constant, and its value.
func (t *Table) IsBoolConst(x Term) (bool, bool) {
	switch t.node(x).Op {
	case OpTrue:
		return true, true
	case OpFalse:
		return false, true
	}
	return false, false
}

// IsVar reports whether x is a variable, and its id.
func (t *Table) IsVar(x Term) (int, bool) {
	n := t.node(x)
	return int(n.Value), n.Op == OpVar
}

func (t *Table) want(s Sort, op string, xs ...Term) {
	for _, x := range xs {
		if got := t.Sort(x); got != s {
			panic(fmt.Sprintf("sym: %s: operand %d has sort %v, want %v", op, x, got, s))
		}
	}
}
