package syncio

import (
	"strings"
	"sync"
	"testing"
)

// TestConcurrentWrites: lines written by many goroutines at once all
// arrive whole, through a Writer into a Buffer, read while they go on
// (run with -race).
func TestConcurrentWrites(t *testing.T) {
	var b Buffer
	w := &Writer{W: &b}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				w.Write([]byte("line\n"))
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	if got := strings.Count(b.String(), "line\n"); got != 800 || len(b.String()) != 800*5 {
		t.Errorf("%d whole lines in %d bytes, want 800 in 4000", got, len(b.String()))
	}
}
