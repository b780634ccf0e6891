// Package search is Arbor's device search-tree layer, in one package: the
// kernel-side protocol (devsearch.cl: the task ring, tickets, donation,
// per-worker status words that keep a stack alive between launches, the
// incumbent word, and the worker loop every kernel fills, ds_worker), its
// Go twin (TwinRing, TwinWorker, for the CPU backend's twins), the one
// description of a search kernel's parameters that the wrapper, the twin
// and a signature test share (Params), the host wrapper every search
// kernel shares (SearchKernel: build, buffers, launch, status), and the
// host epoch loop (Run, RunMany, RunToEnd, Fit, FitShape, WithGoal). An
// algorithm's kernel package supplies only its node expansion, its task
// layout and its certificate.
//
// A search kernel is persistent: each work-group is a worker with its own
// depth-first stack in device memory, taking self-contained tasks from a
// ring and giving away half of a shallow node's untried children when
// others wait. It returns after a node budget (an epoch) with its stacks
// intact; between epochs the host reads the counters, reports progress,
// honours the deadline and cancellation, moves tasks between the ring and
// host memory (the ring never has to hold everything, and a full ring is
// never a failure: a worker that cannot give keeps the work), and
// relaunches. The search is over when no worker holds a task and neither
// the ring nor the host pool has any left.
//
// One loop: RunMany drives one or several devices; Run is its one-device
// form and RunToEnd the conformance checks' form (fixed budget, rings
// seeded by the caller, an epoch limit), all through Options. Like
// everything above backend it never names an API.
//
// Invariants: with the incumbent frozen (WithGoal{Frozen: true}) the tree,
// and so the node count, is the same on every device, for every number of
// workers and devices, whoever explores what (the fixed-goal tests assert
// it); a task is self-contained; nothing waits on another work-group.
package search
