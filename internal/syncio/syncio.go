// Package syncio is output that several goroutines write at once: a
// Writer that serialises the writes to another writer, and a Buffer that
// collects them and can be read while they go on (a cluster's logs, a
// server's stderr in tests).
package syncio

import (
	"io"
	"strings"
	"sync"
)

// Writer serialises writes to W.
type Writer struct {
	mu sync.Mutex
	W  io.Writer
}

func (s *Writer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.W.Write(p)
}

// Buffer collects what several goroutines write; String reads it at any
// time. The zero value is empty and ready.
type Buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String is what has been written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
