package search

// TwinWorker: the Go twin of devsearch.cl's worker loop (ds_worker), the
// template every search kernel's twin fills with its node expansion.

import "github.com/arbor-gpu/arbor/backend"

// TwinWorker is one worker of a search kernel on the CPU backend, the twin
// of ds_worker: a twin runs
//
//	w := search.NewTwinWorker(g, params, capacity, taskWords)
//	for w.Next() {
//		if w.Task != nil { install w.Task as level 0; w.Installed(phase); continue }
//		expand the node at w.Level (w.Phase), counting w.Nodes and w.Spent
//	}
//	w.End()
//
// in the order the kernel runs ds_begin, ds_next, ds_installed and ds_end.
type TwinWorker struct {
	Ring TwinRing
	St   []int64 // this worker's status words
	// Task is the ring slot of the task just taken (Next), to install;
	// nil while the worker holds a node to expand.
	Task []uint64
	pos  uint32

	Nodes, Spent, Donated, Taken int64
	Active                       bool
	Level, Phase                 int
	Base                         int // DSWBase: its meaning is the kernel's
	Budget                       int64
	IdleLimit                    int32
	// Goal and Frozen are the launch's goal and frozen flag (Params.Goal).
	Goal   int32
	Frozen bool

	polls   int32
	waiting bool
}

// NewTwinWorker resumes this work-group's worker of the kernel p declares
// (ds_begin): the ring of capacity slots of taskWords words, its status
// words and the launch's scalars, all read through p.
func NewTwinWorker(g *backend.Group, p Params, capacity, taskWords int) *TwinWorker {
	w := &TwinWorker{Ring: TwinRing{Slots: Arg[uint64](g, p, "slots"), Seq: Arg[uint32](g, p, "seq"),
		Ctrl: Arg[uint32](g, p, "ctrl"), Cap: uint32(capacity), TaskW: taskWords}}
	w.St = WorkerArg[int64](g, p, "wstate", DSWWords)
	full := p.Full()
	n := len(full)
	if p.Goal {
		w.Goal, w.Frozen = g.I32(n-2), g.I32(n-1) != 0
		n -= 2
	}
	w.Budget, w.IdleLimit = g.I64(n-2), g.I32(n-1)
	w.Base = int(w.St[DSWBase])
	w.Nodes, w.Active, w.Level, w.Phase, w.Donated, w.Taken = w.Ring.Resume(w.St)
	return w
}

// Next is the twin of ds_next: true with Task set when the worker has
// taken a task (install it, then Installed), true with Task nil when it
// holds a node to expand within its budget, false when its launch is over.
func (w *TwinWorker) Next() bool {
	w.Task = nil
	for !w.Active {
		pos, took, giveUp := w.Ring.Idle(&w.waiting, &w.polls, w.IdleLimit)
		if giveUp {
			return false
		}
		if took {
			w.pos, w.Task = pos, w.Ring.Slot(pos)
			return true
		}
	}
	return w.Spent < w.Budget
}

// Installed is the twin of ds_installed: the slot is freed and the worker
// enters the task's root at phase.
func (w *TwinWorker) Installed(phase int) {
	w.Ring.CommitPop(w.pos)
	w.Active = true
	w.Taken++
	w.Level, w.Phase = 0, phase
}

// Up is the twin of ds_up: back to the parent, or the task is done.
func (w *TwinWorker) Up() { w.Level, w.Active = w.Ring.Leave(w.Level) }

// End is the twin of ds_end: the worker's status saved for the host.
func (w *TwinWorker) End() {
	w.Ring.SaveStatus(w.St, w.Nodes, w.Active, w.Level, w.Phase, w.Base, w.Donated, w.Taken, w.waiting)
}
