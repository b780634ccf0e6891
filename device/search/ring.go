package search

// Ring: the host's side of the device's task ring, used between launches.

import (
	"fmt"

	"github.com/arbor-gpu/arbor/backend"
)

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
