// Package chanprog generates small random channel programs with real
// control flow and runs each both under weft and on real Go: it is the
// test oracle for weft's channel semantics. Whatever a real run of a
// program does (its first panic or failed assert, a deadlock, a leak, or
// a clean end), some execution that weft explores must do too.
//
// # What a program can express
//
// A Program is plain data: a body goroutine g0 that starts 1 to 3 other
// goroutines at its beginning and may end by waiting for some of them;
// 1 to 3 channels of int64 (capacity 0, 1 or 2, or a nil channel
// variable); up to 2 atomic int64s; optionally a plain shared int64 (a
// weft.Var, for weft runs only). Each goroutine has registers r0..r2 and
// ok, and its own copy of every channel variable, which it may set to nil
// (the fan-in idiom). Statements are sends, receives with and without ok,
// close, len, select with 1 to 3 cases (possibly two on one channel) with
// or without default, if/else over the registers or an atomic load,
// bounded for loops, bounded "range" loops over a channel, break,
// continue, return, assert, and atomic Load, Store and Add. Every loop
// runs at most MaxLoop times and nothing recurses, so every execution
// ends unless it blocks; MaxOps bounds the operations of any execution,
// which keeps exhaustive exploration feasible.
//
// Generate draws programs biased towards bugs that only some
// interleavings reach: goroutines mostly either send on or receive from
// a channel, later statements prefer to match what earlier ones left
// unmatched, producers close what they send on, and asserts check
// received values against values that other goroutines may send. Programs
// still often block or fail in every interleaving; that is a valid
// verdict to compare too. FromBytes turns any byte string into a program,
// for fuzzing.
//
// Body runs a program under weft with the public API only; RunReal runs
// it once on real goroutines and channels; GoSource prints it as a Go
// program a person can read and run.
//
// # How RunReal finds a run blocked forever
//
// Every operation that can block (a send, a receive, a select without
// default, the body's wait for a goroutine) first tries without blocking;
// if it cannot complete, the goroutine records what it waits for and
// waits on the operation and on the run's abort channel at once. A
// watcher checks the run, more and more rarely up to every millisecond:
// it is stuck when every live goroutine waits and none of the recorded
// waits could complete given the channels' buffers, their closed state
// and the other waits. Stuck at four checks in a row spanning five
// milliseconds without any goroutine taking a step, the run is blocked:
// a Deadlock if the body is among the waiting, else a Leak. The watcher
// then closes the abort channel; each waiting goroutine ends by a private
// panic that is not recorded, and RunReal returns once all of them have.
//
// # Limits
//
// A real run is one schedule of Go's, nudged by random yields: it samples
// the interleavings, it does not enumerate them, and a seed does not
// replay it. The detector is a heuristic with one known false positive:
// a goroutine that completed a buffered operation and is then descheduled
// by the OS for longer than the quiet time before it says so, with every
// other goroutine waiting. Checks that fire late (the process starved)
// do not count, which makes it unlikely, not impossible. After 800 ms a
// run that is not stuck is abandoned as TimedOut, which generated
// programs should never be. A panic ends only its goroutine here, where
// it would end a real program; see Outcome for which failures count.
// Programs with Var accesses run under weft only.
package chanprog
