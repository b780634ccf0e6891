package search

// Reading the workers' status words and certificates after a launch.

import "github.com/arbor-gpu/arbor/backend"

// ReadWorkerStatus reads the status words (DSW*) of a search's workers.
func ReadWorkerStatus(q backend.Queue, wstate backend.Buffer, workers int) ([]int64, error) {
	st := make([]int64, workers*DSWWords)
	return st, backend.ReadSlice(q, wstate, st)
}

// BestWorker is the worker whose certificate (stride words each, the
// first its size word) has the largest size word above none, the first of
// equals; -1 when no size word is above none. Certificates of 64-bit words
// (a size or value past 2^31, packed pairs) take it as well as 32-bit ones.
func BestWorker[T ~int32 | ~uint32 | ~int64 | ~uint64](certs []T, workers, stride int, none T) int {
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
