package syncio

import (
	"strings"
	"sync"
	"testing"
)

// TestConcurrentWrites: lines written by many goroutines at once all
// arrive whole, through a Writer into a collecting one, read while they
// go on (run with -race).
func TestConcurrentWrites(t *testing.T) {
	var b Writer
	w := &Writer{W: &b}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
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
