package search

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device"
)

// The device search-tree layer's shared state (devsearch.cl): the control
// block's words and each worker's status words.
const (
	DSHead      = 0 // ring position of the next task to take
	DSTail      = 1 // ring position of the next task to publish
	DSInc       = 2 // size of the best solution found (atomic max)
	DSHungry    = 3 // workers waiting for a task
	DSRunning   = 4 // workers holding a task in the current launch
	DSCtrlWords = 8

	DSWNodes   = 0 // nodes counted by the worker, all launches together
	DSWActive  = 1 // 1 while it holds a task (its stack persists between launches)
	DSWLevel   = 2
	DSWPhase   = 3
	DSWBase    = 4
	DSWDonated = 5 // tasks it gave away
	DSWTaken   = 6 // tasks it took from the ring
	DSWWords   = 8
)

// CheckGeometry checks what every search kernel's shape has: work-items
// per worker (a power of two up to 64: a warp or an AMD wavefront),
// workers, and a ring capacity
// that is a power of two.
func CheckGeometry(kernel string, lanes, workers, capacity int) error {
	if lanes&(lanes-1) != 0 || lanes < 1 || lanes > 64 {
		return fmt.Errorf("%s: %d lanes per worker (want a power of two up to 64)", kernel, lanes)
	}
	if workers < 1 {
		return fmt.Errorf("%s: %d workers", kernel, workers)
	}
	if capacity < 2 || capacity&(capacity-1) != 0 {
		return fmt.Errorf("%s: ring capacity %d is not a power of two ≥ 2", kernel, capacity)
	}
	return nil
}

// ReadWorkerStatus reads the status words (DSW*) of a search's workers.
func ReadWorkerStatus(q backend.Queue, wstate backend.Buffer, workers int) ([]int64, error) {
	st := make([]int64, workers*DSWWords)
	return st, backend.ReadSlice(q, wstate, st)
}

// epochArgs are a search kernel's launch arguments in the layer's order:
// its inputs, the ring, the workers' status words, its own state, then
// the node budget, the idle limit and the goal with its frozen flag: the
// order every *_epoch kernel declares its parameters in.
func epochArgs(in []backend.Buffer, r *Ring, wstate backend.Buffer, state []backend.Buffer, budget int64, idleLimit, goal int32, frozen bool) []backend.Arg {
	args := make([]backend.Arg, 0, len(in)+len(state)+8)
	for _, b := range in {
		args = append(args, backend.Buf(b))
	}
	args = append(args, backend.Buf(r.Slots), backend.Buf(r.Seq), backend.Buf(r.Ctrl), backend.Buf(wstate))
	for _, b := range state {
		args = append(args, backend.Buf(b))
	}
	fz := int32(0)
	if frozen {
		fz = 1
	}
	return append(args, backend.I64(budget), backend.I32(idleLimit), backend.I32(goal), backend.I32(fz))
}

// resetSearch clears a search's worker status words and its ring, and
// sets the incumbent word; each wrapper clears its own certificates.
func resetSearch(q backend.Queue, wstate backend.Buffer, workers int, r *Ring, incumbent int) error {
	if err := backend.WriteSlice(q, wstate, make([]int64, workers*DSWWords)); err != nil {
		return err
	}
	return r.Reset(q, int32(incumbent))
}

// ReleaseSearch frees what every search kernel's wrapper holds: its
// kernel, its buffers (the ring's included) and its program. It returns
// the first error.
func ReleaseSearch(k backend.Kernel, bs *backend.Buffers, prog backend.Program) error {
	var first error
	if k != nil {
		first = k.Release()
	}
	if bs != nil {
		bs.Free()
	}
	if prog != nil {
		if err := prog.Release(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// SearchKernel is what the wrappers of mcsplit_epoch, clique_epoch and
// vc_epoch hold alike: the device, the program and its epoch kernel, the
// buffers (the ring's included), the workers' status words, and the
// launch geometry (workers work-groups of lanes work-items).
type SearchKernel struct {
	name           string // the source, name.cl, whose kernel is name_epoch
	dev            backend.Device
	prog           backend.Program
	k              backend.Kernel
	Buffers        *backend.Buffers
	WState         backend.Buffer
	workers, lanes int
}

// NewSearchKernel builds name_epoch for dev with defines and starts the
// buffer set; the wrapper allocates into sk.bs (sk.wstate included), then
// calls newRing. On an error nothing is left held.
func NewSearchKernel(dev backend.Device, q backend.Queue, name string, defines map[string]string, workers, lanes int) (SearchKernel, error) {
	prog, err := device.Build(dev, name, defines, name+"_epoch")
	if err != nil {
		return SearchKernel{}, err
	}
	sk := SearchKernel{name: name, dev: dev, prog: prog, Buffers: backend.NewBuffers(dev, q), workers: workers, lanes: lanes}
	if sk.k, err = prog.Kernel(name + "_epoch"); err != nil {
		sk.Free()
		return SearchKernel{}, fmt.Errorf("%s: %w", name, err)
	}
	if err := device.CheckSubgroupKernel(dev, sk.k, lanes); err != nil {
		sk.Free()
		return SearchKernel{}, err
	}
	return sk, nil
}

// NewRing checks the wrapper's allocations (bytes, the whole search's,
// names the size in the error) and adds the task ring to them.
func (sk *SearchKernel) NewRing(capacity, taskWords int, bytes int64) (*Ring, error) {
	if err := sk.Buffers.Err(); err != nil {
		return nil, fmt.Errorf("%s: %d workers, %d MiB: %w", sk.name, sk.workers, bytes>>20, err)
	}
	return NewRing(sk.Buffers, capacity, taskWords)
}

// Launch runs one epoch with the kernel's inputs in and own state around
// the layer's arguments (epochArgs).
func (sk *SearchKernel) Launch(q backend.Queue, in []backend.Buffer, r *Ring, state []backend.Buffer, budget int64, idleLimit, goal int32, frozen bool) error {
	err := q.Launch(sk.k, backend.R1(sk.workers*sk.lanes, sk.lanes),
		epochArgs(in, r, sk.WState, state, budget, idleLimit, goal, frozen)...)
	if err != nil {
		return fmt.Errorf("%s_epoch on %s: %w", sk.name, sk.dev.Info(), err)
	}
	return nil
}

// Status reads every worker's status words (DSW*).
func (sk *SearchKernel) Status(q backend.Queue) ([]int64, error) {
	return ReadWorkerStatus(q, sk.WState, sk.workers)
}

// ResetWorkers clears the workers' status words and the ring, and sets the
// incumbent word.
func (sk *SearchKernel) ResetWorkers(q backend.Queue, r *Ring, incumbent int) error {
	return resetSearch(q, sk.WState, sk.workers, r, incumbent)
}

// Free frees the kernel, the buffers and the program (the wrapper's
// Release calls it; an error path of NewSearchKernel too).
func (sk *SearchKernel) Free() error { return ReleaseSearch(sk.k, sk.Buffers, sk.prog) }

// BestWorker is the worker whose certificate (stride words each, the
// first its size word) has the largest size word above none, the first of
// equals; -1 when no size word is above none.
func BestWorker[T int32 | uint32](certs []T, workers, stride int, none T) int {
	best, size := -1, none
	for w := 0; w < workers; w++ {
		if c := certs[w*stride]; c > size {
			best, size = w, c
		}
	}
	return best
}

// WorkerTotals sums the status words of a search's workers.
type WorkerTotals struct {
	Nodes   int64 // nodes counted, all launches together
	Active  int   // workers holding a task
	Donated int64 // tasks given away
}

// SumWorkers totals the status words (DSW*) of workers workers.
func SumWorkers(status []int64, workers int) WorkerTotals {
	var t WorkerTotals
	for w := 0; w < workers; w++ {
		s := status[w*DSWWords : (w+1)*DSWWords]
		t.Nodes += s[DSWNodes]
		t.Donated += s[DSWDonated]
		if s[DSWActive] != 0 {
			t.Active++
		}
	}
	return t
}

// Ring is the device search layer's task ring: Capacity slots of TaskWords
// uint64 words, one sequence word per slot, and the control block. Kernels
// push and pop concurrently (devsearch.cl); the host seeds and drains it
// between launches, when no kernel runs, through Push and Drain.
type Ring struct {
	Capacity  int // a power of two
	TaskWords int
	Slots     backend.Buffer // Capacity × TaskWords uint64
	Seq       backend.Buffer // Capacity uint32
	Ctrl      backend.Buffer // DSCtrlWords uint32
}

// NewRing allocates a ring in bs.
func NewRing(bs *backend.Buffers, capacity, taskWords int) (*Ring, error) {
	if capacity <= 0 || capacity&(capacity-1) != 0 {
		return nil, fmt.Errorf("devsearch: ring capacity %d is not a power of two", capacity)
	}
	r := &Ring{Capacity: capacity, TaskWords: taskWords}
	r.Slots = backend.AllocIn[uint64](bs, capacity*taskWords)
	r.Seq = backend.AllocIn[uint32](bs, capacity)
	r.Ctrl = backend.AllocIn[uint32](bs, DSCtrlWords)
	if err := bs.Err(); err != nil {
		return nil, fmt.Errorf("devsearch: ring of %d tasks of %d words: %w", capacity, taskWords, err)
	}
	return r, nil
}

// Reset empties the ring and zeroes the control block (incumbent included).
func (r *Ring) Reset(q backend.Queue, incumbent int32) error {
	ctrl := make([]uint32, DSCtrlWords)
	ctrl[DSInc] = uint32(incumbent)
	if err := backend.WriteSlice(q, r.Ctrl, ctrl); err != nil {
		return err
	}
	return r.writeSeq(q, 0, 0)
}

// writeSeq sets every slot's sequence word for a quiescent ring holding
// the tasks at positions [head, tail): a full slot at position p holds
// p+1, a free one the position it will be written at next.
func (r *Ring) writeSeq(q backend.Queue, head, tail uint32) error {
	c := uint32(r.Capacity)
	seq := make([]uint32, c)
	for i := uint32(0); i < c; i++ {
		// The smallest position ≥ head that lands in slot i.
		p := head + (i-head%c+c)%c
		if p-head < tail-head {
			seq[i] = p + 1
		} else {
			seq[i] = p
		}
	}
	return backend.WriteSlice(q, r.Seq, seq)
}

// Control reads the control block.
func (r *Ring) Control(q backend.Queue) ([DSCtrlWords]uint32, error) {
	var c [DSCtrlWords]uint32
	err := backend.ReadSlice(q, r.Ctrl, c[:])
	return c, err
}

// RaiseIncumbent lifts the incumbent word to at least v (a solution found
// elsewhere: the host, CPU threads). Only between launches.
func (r *Ring) RaiseIncumbent(q backend.Queue, v int32) error {
	ctrl, err := r.Control(q)
	if err != nil {
		return err
	}
	if int32(ctrl[DSInc]) >= v {
		return nil
	}
	ctrl[DSInc] = uint32(v)
	return backend.WriteSlice(q, r.Ctrl, ctrl[:])
}

// SetDemand asks the device's workers to keep n tasks queued beyond what
// its own idle workers want: the hungry count starts each launch at n, and
// busy workers donate while fewer tasks than that are queued. A search
// spread over several devices sets it on a busy device while another has
// run dry, and moves what was donated (RunMany). The workers
// leave the count where they found it, so it holds until changed. Only
// between launches.
func (r *Ring) SetDemand(q backend.Queue, n int32) error {
	ctrl, err := r.Control(q)
	if err != nil {
		return err
	}
	if int32(ctrl[DSHungry]) == n {
		return nil
	}
	ctrl[DSHungry] = uint32(n)
	return backend.WriteSlice(q, r.Ctrl, ctrl[:])
}

// Queued is the number of tasks in a control block's ring.
func Queued(ctrl [DSCtrlWords]uint32) int { return int(ctrl[DSTail] - ctrl[DSHead]) }

// Push appends tasks (each TaskWords long) while there is room and
// returns how many it took. Only between launches.
func (r *Ring) Push(q backend.Queue, tasks [][]uint64) (int, error) {
	ctrl, err := r.Control(q)
	if err != nil {
		return 0, err
	}
	head, tail := ctrl[DSHead], ctrl[DSTail]
	k := min(len(tasks), r.Capacity-int(tail-head))
	if k <= 0 {
		return 0, nil
	}
	// One write per contiguous run of slots (two where the ring wraps):
	// a multi-device search moves thousands of tasks between launches.
	buf := make([]uint64, k*r.TaskWords)
	for i := 0; i < k; i++ {
		if len(tasks[i]) > r.TaskWords {
			return 0, fmt.Errorf("devsearch: task of %d words, slots hold %d", len(tasks[i]), r.TaskWords)
		}
		copy(buf[i*r.TaskWords:], tasks[i])
	}
	if err := r.slotsIO(q, tail, k, buf, q.Write); err != nil {
		return 0, err
	}
	if err := r.writeSeq(q, head, tail+uint32(k)); err != nil {
		return 0, err
	}
	ctrl[DSTail] = tail + uint32(k)
	return k, backend.WriteSlice(q, r.Ctrl, ctrl[:])
}

// Drain takes up to k tasks from the head of the ring into host memory.
// Only between launches.
func (r *Ring) Drain(q backend.Queue, k int) ([][]uint64, error) {
	ctrl, err := r.Control(q)
	if err != nil {
		return nil, err
	}
	head, tail := ctrl[DSHead], ctrl[DSTail]
	k = min(k, int(tail-head))
	if k <= 0 {
		return nil, nil
	}
	buf := make([]uint64, k*r.TaskWords)
	if err := r.slotsIO(q, head, k, buf, q.Read); err != nil {
		return nil, err
	}
	out := make([][]uint64, k)
	for i := range out {
		out[i] = buf[i*r.TaskWords : (i+1)*r.TaskWords : (i+1)*r.TaskWords]
	}
	if err := r.writeSeq(q, head+uint32(k), tail); err != nil {
		return nil, err
	}
	ctrl[DSHead] = head + uint32(k)
	return out, backend.WriteSlice(q, r.Ctrl, ctrl[:])
}

// slotsIO reads or writes (io: q.Read or q.Write) the k slots from ring
// position pos on, as buf (k × TaskWords words): one transfer per
// contiguous run, two where the ring wraps.
func (r *Ring) slotsIO(q backend.Queue, pos uint32, k int, buf []uint64, io func(backend.Buffer, int, []byte) error) error {
	first := int(pos & uint32(r.Capacity-1))
	n := min(k, r.Capacity-first)
	w := r.TaskWords
	if err := io(r.Slots, first*w*8, backend.Bytes(buf[:n*w])); err != nil {
		return err
	}
	if n < k {
		return io(r.Slots, 0, backend.Bytes(buf[n*w:k*w]))
	}
	return nil
}

// TwinRing is the Go twin of devsearch.cl's ring over the memory of CPU
// backend buffers. Work-groups run as concurrent goroutines there, so the
// control and sequence words are used through sync/atomic only, which
// also orders the plain slot reads and writes around them.
type TwinRing struct {
	Slots []uint64
	Seq   []uint32
	Ctrl  []uint32
	Cap   uint32
	TaskW int
}

func (r *TwinRing) Slot(pos uint32) []uint64 {
	i := int(pos&(r.Cap-1)) * r.TaskW
	return r.Slots[i : i+r.TaskW]
}

func (r *TwinRing) ReservePush() (uint32, bool) {
	for tries := 0; tries < 64; tries++ {
		pos := atomic.LoadUint32(&r.Ctrl[DSTail])
		s := atomic.LoadUint32(&r.Seq[pos&(r.Cap-1)])
		switch diff := int32(s - pos); {
		case diff == 0:
			if atomic.CompareAndSwapUint32(&r.Ctrl[DSTail], pos, pos+1) {
				return pos, true
			}
		case diff < 0:
			return 0, false
		}
	}
	return 0, false
}

func (r *TwinRing) CommitPush(pos uint32) { atomic.AddUint32(&r.Seq[pos&(r.Cap-1)], 1) }

func (r *TwinRing) reservePop() (uint32, bool) {
	for tries := 0; tries < 64; tries++ {
		pos := atomic.LoadUint32(&r.Ctrl[DSHead])
		s := atomic.LoadUint32(&r.Seq[pos&(r.Cap-1)])
		switch diff := int32(s - (pos + 1)); {
		case diff == 0:
			if atomic.CompareAndSwapUint32(&r.Ctrl[DSHead], pos, pos+1) {
				return pos, true
			}
		case diff < 0:
			return 0, false
		}
	}
	return 0, false
}

func (r *TwinRing) CommitPop(pos uint32) { atomic.AddUint32(&r.Seq[pos&(r.Cap-1)], r.Cap-1) }

func (r *TwinRing) queued() int32 {
	return int32(atomic.LoadUint32(&r.Ctrl[DSTail]) - atomic.LoadUint32(&r.Ctrl[DSHead]))
}

func (r *TwinRing) Add(word int, delta int32) { atomic.AddUint32(&r.Ctrl[word], uint32(delta)) }

func (r *TwinRing) Load(word int) int32 { return int32(atomic.LoadUint32(&r.Ctrl[word])) }

// MaxInc raises the incumbent word to at least m.
func (r *TwinRing) MaxInc(m int32) {
	for {
		old := atomic.LoadUint32(&r.Ctrl[DSInc])
		if int32(old) >= m || atomic.CompareAndSwapUint32(&r.Ctrl[DSInc], old, uint32(m)) {
			return
		}
	}
}

// tryTake is the twin of devsearch.cl's ds_try_take: the position of a
// task now owned, or ok false with the number of workers still running.
func (r *TwinRing) tryTake(waiting bool) (pos uint32, ok bool, running int32) {
	pos, ok = r.reservePop()
	if !ok {
		if !waiting {
			r.Add(DSHungry, 1)
		}
		return 0, false, r.Load(DSRunning)
	}
	if waiting {
		r.Add(DSHungry, -1)
	}
	r.Add(DSRunning, 1)
	return pos, true, 1
}

// Resume is the twin of ds_resume: the status words the last launch
// saved, less DSWBase (whose meaning is the kernel's: each twin reads it
// itself), and a worker that still holds a task counts as running again.
func (r *TwinRing) Resume(st []int64) (nodes int64, active bool, level, phase int, donated, taken int64) {
	nodes, active = st[DSWNodes], st[DSWActive] != 0
	level, phase = int(st[DSWLevel]), int(st[DSWPhase])
	donated, taken = st[DSWDonated], st[DSWTaken]
	if active {
		r.Add(DSRunning, 1)
	}
	return nodes, active, level, phase, donated, taken
}

// Leave is the twin of ds_leave: the level of the parent's next child,
// or, leaving the task's own root, level 0 and active false (the task is
// done).
func (r *TwinRing) Leave(level int) (int, bool) {
	if level > 0 {
		return level - 1, true
	}
	r.Add(DSRunning, -1)
	return 0, false
}

// Idle is an idle twin worker's attempt to take a task, the twin of
// ds_take: the position it took, or, when none was ready, whether to give
// up (after idleLimit tries, or once no worker that could donate is
// running). Between tries it yields, so that on few cores the busy
// workers run and see this one waiting (otherwise its polls are spent
// before anyone donates).
func (r *TwinRing) Idle(waiting *bool, polls *int32, idleLimit int32) (pos uint32, took, giveUp bool) {
	pos, ok, running := r.tryTake(*waiting)
	if ok {
		*waiting, *polls = false, 0
		return pos, true, false
	}
	*waiting = true
	*polls++
	if *polls >= idleLimit || running <= 0 {
		return 0, false, true
	}
	runtime.Gosched()
	return 0, false, false
}

// ShouldGive is the twin of ds_should_give.
func (r *TwinRing) ShouldGive() bool {
	hungry := r.Load(DSHungry)
	return hungry > 0 && r.queued() < hungry
}

// SaveStatus is the twin of ds_save_status.
func (r *TwinRing) SaveStatus(st []int64, nodes int64, active bool, level, phase, base int, donated, taken int64, waiting bool) {
	st[DSWNodes], st[DSWLevel], st[DSWPhase], st[DSWBase] = nodes, int64(level), int64(phase), int64(base)
	st[DSWDonated], st[DSWTaken] = donated, taken
	st[DSWActive] = 0
	if active {
		st[DSWActive] = 1
		r.Add(DSRunning, -1)
	} else if waiting {
		r.Add(DSHungry, -1)
	}
}

// RunToEnd drives k on one device until no worker holds a task and the
// ring is empty, with a fixed node budget per launch and no deadline: the
// form the conformance checks use. The caller has seeded the ring (Push).
// It is Run with Options.Budget, IdleLimit, EpochLimit and Seeded set, and
// returns the workers' totals.
func RunToEnd(q backend.Queue, k Kernel, workers int, budget int64) (WorkerTotals, error) {
	st, _, err := Run(context.Background(), q, k, workers, Options{Budget: budget, IdleLimit: 1 << 10, EpochLimit: 1 << 16, Seeded: true})
	return WorkerTotals{Nodes: st.Nodes, Active: st.Active, Donated: st.Donated}, err
}
