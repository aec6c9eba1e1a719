// Package runtime runs a program under the checker, one execution at a time.
//
// Every modelled goroutine runs on a coroutine (iter.Pull): exactly one runs
// at a time, and a switch from one to another is one coroutine switch,
// straight from one to the next (see switchTo), a quarter of a handoff
// through channels (see BenchmarkRawHandoff). A goroutine that reaches a
// visible operation asks the engine what happens next; when the engine lets
// it continue, no switch happens at all.
//
// Coroutines are kept in a pool across executions: a goroutine that returns
// frees its coroutine for the next spawn, so an execution allocates almost
// nothing. An abandoned execution (a bug, a blocked goroutine, a limit) is
// unwound by resuming each parked goroutine with a panic that only the
// runtime recovers; the program's deferred calls run, and weft operations
// they make panic again, so nothing of the execution survives it.
//
// Objects of the program (Vars, mutexes, atomics...) carry an Obj header.
// The first operation of an execution on an object binds it to that
// execution: objects created outside the body are thereby reset to their
// zero value at the start of every execution.
//
// Any number of checks run at once in a process, each with its own driver,
// executions and coroutines. An operation finds its execution from the
// calling goroutine, in a registry of the coroutines (see registry.go); a
// goroutine that is not in it is not weft's. An object shared by checks
// running at once is bound to one execution at a time, and the others
// keep their binding of it to themselves (see execution.claim).
//
// A goroutine of the program that never hands the turn back (a loop in
// plain Go, a real channel) would hold the driver forever: a watchdog in
// Run's goroutine gives such an execution up without unwinding it (its
// goroutines are left where they are, abandoned; see watchdog.go).
package runtime
