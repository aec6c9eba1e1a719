// Package qpor is quasi-optimal partial order reduction (Nguyen,
// Rodríguez, Sousa, Coti, Petrucci, CAV 2018; the tool DPU): an explorer
// of the unfolding of the program under package indep's independence
// relation, which explores each Mazurkiewicz trace exactly once, with
// alternatives that are optimal or k-partial.
//
// # The unfolding
//
// An event is an operation of a goroutine, with its outcome, after a
// history: the configuration (a causally closed, conflict-free set of
// events) of everything that must happen before it. It is named by its
// goroutine, its outcome and its immediate causes, the maximal events of
// the history, which are all dependent with it (Def. 1 of the paper); the
// unfolding memoizes events by that name, so every execution that
// reaches an event finds the same one. Two events are in conflict when
// their histories cannot be joined: two different events of one
// goroutine after one predecessor, or two dependent events neither of
// which causes the other. The maximal configurations are the traces.
//
// Causality and conflict are decided with the paper's trees (§5.1): every
// event keeps its predecessor in its goroutine and a jump pointer further
// back (Myers' skew-binary scheme, in place of the skip lists of §5.2:
// the ancestor at a depth is as few steps away, and the unfolding, kept
// whole, takes less memory) and, for every goroutine, the latest of its
// events in the event's history (tmax, Def. 7). An event is in a configuration when it is an
// ancestor of the configuration's latest event of its goroutine, and two
// configurations can be joined when their goroutines' chains agree and no
// event of one is dependent with an event of the other that the first
// lacks. The paper's lock trees become indep's relation on memory: reads
// of a location commute, so that the events on a location form a tree
// of writes with sets of reads hanging off each write.
//
// # The exploration (Alg. 1)
//
// Each execution replays a configuration C of the previous one and then
// extends it, taking at each step the first enabled event not in D, the
// events that must not be explored again, or, while it has not reached it,
// an event of the alternative J it was started toward. An execution in
// which every enabled event is in D is sleep-set blocked: it is dropped
// and counted in Result.Redundant. When an execution ends, the extensions
// of its configuration are added to the unfolding (cexp of Alg. 1,
// generalized from locks to reads and writes: each operation of C after
// every other history in C it could have had); then the trail is popped:
// the event e chosen at a depth joins D there, and when an alternative to
// D after the configuration before e exists, the next execution goes
// there, else the depth is done. The unfolding is kept whole: Alg. 1
// (line 13) prunes it to C, D and the events in conflict with them, but
// an event pruned and found again would be a new one, and an event that
// names it among its causes, kept, would be made again beside it; and
// the extensions of the part of the trail an execution replays are not
// looked for again (DPU's exploration loop does not prune either).
//
// # Alternatives and the comb (§4, §5)
//
// An alternative is a configuration J, compatible with C and disjoint
// from D, that conflicts with every event of D not already in conflict
// with C. Finding one is NP-complete; the comb has a spike per such event
// of D, holding the events of the unfolding in immediate conflict with it
// that J could contain, and a combination of pairwise compatible events,
// one per spike, found by backtracking, is an alternative. The spike of an
// event x looks at the events of other goroutines after x's latest write
// of each object x touches (events after an earlier one conflict with a
// write of C), and at those of x's goroutine after x's predecessor: those
// after another write of x's object only when one of the first kind
// writes it and is compatible with C (the first write after x's in such
// an event's history is one). Most are on other branches, and whether one
// is compatible with C, the trail's first events, is decided on the
// goroutines' chains, x's first (where most events on x's object
// disagree with C), and on an index of the trail by object, which lists
// the events of C that it may depend on. With k set
// ("qpor:k=2"), the comb has only k spikes (the event just added to D and
// the k-1 oldest others), which is polynomial but may lead to sleep-set
// blocked executions; k = 1 is the paper's "only-last". Alg. 1 reaches
// every maximal configuration exactly once whatever the alternatives:
// k changes only how much redundant work is done.
//
// # Mapping to weft
//
// Operations are weft's labels with their effect in the execution (package
// indep: a failed CompareAndSwap only reads). Spawn precedes the spawned
// goroutine's operations and End the Join that waits for it. Objects are
// named by the operations that touch them, since the runtime numbers them
// in the order an execution first touches them. A blocking operation
// (Lock, a semaphore acquire, Cond's wait) is an event only after
// histories whose last write lets it proceed. Symbolic branches are
// explored like other multi-outcome operations: each outcome the solver
// allows where the goroutine reaches the branch is an event; an
// alternative may combine outcomes that the path condition rules out
// together, and the execution that finds its next event infeasible goes
// on from the enabled events not in D, as after any clue, which may end
// sleep-set blocked (1 of 400 random symbolic programs). Bugs stop only
// their goroutine (engine.Continuer), so that executions stay maximal
// configurations. The wait of weft.Yield is dependent with every write to
// memory or a sync object (package indep): it reads every object, those
// first written after it too, so it hangs in no object's tree. Its
// immediate causes are the latest write of every object, and the waits
// are among those of every write, as reads of every write (a wait is
// the last event of its goroutine in an execution, so an execution has
// few); the spikes of a wait and of a write look through all the writes
// and all the waits of the unfolding. qpor tells, as an engine.Awaiter,
// a wait that spins forever.
//
// # Bug endings
//
// The executions that end in a bug have classes of their own (package
// indep, Trace.Ending): a deadlock or a leak is a maximal configuration
// where some goroutine waits forever, which qpor, as Alg. 1, reaches
// exactly once; a failure (an assertion, a panic, a race, a misuse) is
// the local configuration of the failing event, which dfs reaches in
// every interleaving that performs it first, and qpor at least once, not
// exactly once. Going on past a bug, qpor explores maximal configurations,
// and every one that contains the failing event contains its local
// configuration: a goroutine that fails while two others store to one
// location is in both orders of the stores, two executions of one
// failure. Reaching it once would take stopping at it,
// which leaves non-maximal configurations, and pruning the configurations
// that contain it, which are where the events concurrent with it, and
// their own bugs and traces, are found: no event tells, when the failure
// happens, that nothing after it is left to find. Each execution is still
// a maximal configuration reached once, so the failures reached more than
// once are what the traces around them cost, not redundant work.
//
// # Channels
//
// Channel operations are the steps of package chans, under indep's
// relation. An event is a step with its outcome (the case taken, and the
// goroutine whose offer it takes, if any): a make; an offer, the silent
// first step of a blocking operation with a case on an unbuffered
// channel; a completion (a send, receive, close, len, a select taking a
// case or its default, the wait of an offer that completes on its own);
// or a handed wait, the silent second step of a goroutine whose offer
// another took.
//
// A channel is an object, named by its make event: the runtime's name for
// it, the step that made it, differs between executions. A completion
// touches every channel of its cases (a select several, the wait of a
// select all of its own), writing them, except len, which reads its
// channel; a make touches none (its channel is new). Its immediate causes
// are, as for memory, in every channel it touches, the latest write and,
// for a write, the lens of that write: an event on several channels hangs
// in the tree of each after its write there (the general case of
// unfoldings: an event has a predecessor in every object it touches).
// Silent steps touch no channel: an offer is dependent only with the
// events that take it, which have it as a cause, and a handed wait only
// with its taker, its cause. Package indep finds two takers of one offer
// through different channels of a select independent, but they cannot
// both happen: qpor makes the takers of one goroutine's offers dependent,
// which orders no two events of an execution that were not ordered (the
// takers of two offers are, through the handed wait between), and makes
// two takers of one offer conflict.
//
// Conflicts are decided as for memory, on the goroutines' chains and the
// dependency of the events beyond the common part, whatever the objects:
// two events of one goroutine after one predecessor, two writes of a
// channel (or a write and a len) after one write of it, two takers of one
// offer. The comb's spike for an event of D looks for the events in
// immediate conflict with it in the tree of each of its channels and among
// the takers of its offer.
//
// What a channel operation can do after a history (the values buffered,
// a close, the offers standing) depends on all the channel operations of
// the history; the extensions of an execution (ex(C)) are found for each
// history of an operation made of its causes (for each channel, a write
// and reads of it; an offer it may take, or the taker of its own) by
// performing the history's channel operations again, in the execution's
// order, which orders any part of it, and asking chans for the outcomes.
// The histories of an operation mostly grow one write of its channel at
// a time: a history whose first channel operations are those performed
// for the previous one performs only the others.
//
// Optimal qpor stays optimal because completeness (Theorem 2) and the
// optimality of alternatives (§3) use only that dependent events of a
// configuration are ordered, that independent events do not change
// whether an event is enabled nor its outcome, and that conflict is
// decided exactly. Package chans gives the second: an offer makes no case
// ready for a default, so only a taker, which depends on it, sees it.
// Theorem 6's reduction of conflict to the trees of the objects holds for
// events in several trees (a conflict is in one of them): every pair of
// dependent events on channels is in a channel's tree or a set of takers,
// where the spikes look.
package qpor
