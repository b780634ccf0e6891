package search

import (
	"context"
	"time"

	"github.com/arbor-gpu/arbor/backend"
)

// Kernel is one search kernel on a device: what the loop drives.
type Kernel interface {
	// Epoch launches the kernel once with a node budget per worker and
	// a bound on how often an idle worker looks for work before it returns.
	Epoch(q backend.Queue, budget int64, idleLimit int32) error
	// WorkerStatus reads every worker's status words (DSW*).
	WorkerStatus(q backend.Queue) ([]int64, error)
	// TaskRing is the kernel's task ring.
	TaskRing() *Ring
}

// Status is a snapshot between two epochs.
type Status struct {
	Nodes     int64         // nodes counted by the workers
	Incumbent int           // size (or value) of the best solution found
	Active    int           // workers holding a task
	Queued    int           // tasks in the ring
	Pooled    int           // tasks in host memory
	Donated   int64         // tasks workers gave away
	Epochs    int           // launches so far
	Budget    int64         // the last epoch's node budget per worker
	Elapsed   time.Duration // since Run started
	// Tail is the time from the first epoch that ended with at most half
	// of the workers busy to the end: the tail of the search.
	Tail time.Duration
	// Devices is the number of devices searching; Moved counts the tasks
	// the host moved from one device's ring to another's.
	Devices int
	Moved   int64
	// Pool holds the tasks still in host memory when RunMany returns
	// (never set in Progress's snapshots): with the devices' rings and
	// stacks, the work a stopped search has not explored.
	Pool [][]uint64
}

// Options control Run.
type Options struct {
	// Deadline stops the search (zero: none); so does cancelling ctx.
	Deadline time.Time
	// NodeLimit stops the search after about this many nodes (0: none).
	NodeLimit int64
	// Epoch is the target duration of one launch (default 50 ms): short
	// enough for progress and timeouts, long enough to hide the launch.
	Epoch time.Duration
	// Progress is called after each epoch that ends ProgressInterval
	// (default 200 ms) or more after the last call.
	Progress         func(Status)
	ProgressInterval time.Duration
	// Between, when set, runs after each epoch with the device's
	// incumbent. It returns the best incumbent known elsewhere (CPU
	// threads searching beside the device), which the device then prunes
	// with, and stop to end the search because it is settled elsewhere.
	Between func(incumbent int) (elsewhere int, stop bool)
	// Pool holds tasks (each the ring's TaskWords long) that did not fit
	// in the ring; they are fed in as room appears.
	Pool [][]uint64
	// Seeded says the rings already hold tasks (the caller pushed them):
	// every device launches once before the loop looks at the pool.
	Seeded bool
	// Budget, when set, is every launch's node budget per worker; else
	// the budget starts at 256 and is aimed at Epoch's duration.
	Budget int64
	// IdleLimit bounds how often an idle worker polls for a task before
	// its launch returns (0: the budget, at most 2^20).
	IdleLimit int32
	// EpochLimit, when set, makes a search that needs more launches an
	// error (a guard for the checks, which must end).
	EpochLimit int
}

// Run drives k until the search is over, stopped or failed. It returns the
// last status and whether the search ran to its end (proven).
func Run(ctx context.Context, q backend.Queue, k Kernel, workers int, opt Options) (Status, bool, error) {
	return RunMany(ctx, []Unit{{Queue: q, Kernel: k, Workers: workers}}, opt)
}

// GoalKernel is a search kernel whose launches also take a goal and
// whether the incumbent is frozen at goal − 1 (the fixed-incumbent mode
// whose trees compare across devices): the form of every port so far.
type GoalKernel interface {
	Epoch(q backend.Queue, budget int64, idleLimit int32, goal int32, frozen bool) error
	WorkerStatus(q backend.Queue) ([]int64, error)
	TaskRing() *Ring
}

// WithGoal is a GoalKernel with its goal fixed: the Kernel the loop drives.
type WithGoal struct {
	K      GoalKernel
	Goal   int32
	Frozen bool
}

func (w *WithGoal) Epoch(q backend.Queue, budget int64, idleLimit int32) error {
	return w.K.Epoch(q, budget, idleLimit, w.Goal, w.Frozen)
}
func (w *WithGoal) WorkerStatus(q backend.Queue) ([]int64, error) { return w.K.WorkerStatus(q) }
func (w *WithGoal) TaskRing() *Ring                               { return w.K.TaskRing() }
