// Package syncio is output that several goroutines write at once (a
// cluster's worker processes and logs, a server's stderr in tests).
package syncio

import (
	"io"
	"strings"
	"sync"
)

// Writer serialises writes to W. With W nil it collects them instead,
// and String reads what it has collected at any time: the zero value is
// an empty buffer, ready.
type Writer struct {
	mu sync.Mutex
	W  io.Writer
	b  strings.Builder
}

func (s *Writer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.W == nil {
		return s.b.Write(p)
	}
	return s.W.Write(p)
}

// String is what a Writer without W has collected so far.
func (s *Writer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
