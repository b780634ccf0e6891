package search

// The layer's shared layout: the control block's and the status words'
// indices, and the geometry every search kernel checks.

import "fmt"

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
