package cli

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Progress rewrites one status line on stderr, at most every interval, and
// only when stderr is a terminal (pipes and logs stay quiet). Nothing is
// shown before delay has passed, so quick runs print no progress at all.
type Progress struct {
	mu       sync.Mutex
	W        io.Writer
	on       bool
	start    time.Time
	last     time.Time
	delay    time.Duration
	interval time.Duration
	shown    bool
}

func NewProgress(e *Env) *Progress {
	return &Progress{W: e.Stderr, on: IsTerminal(e.Stderr), start: time.Now(), delay: 2 * time.Second, interval: 200 * time.Millisecond}
}

// Update shows line if enough time has passed; safe for concurrent use.
func (p *Progress) Update(line string) {
	if p == nil || !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if now.Sub(p.start) < p.delay || now.Sub(p.last) < p.interval {
		return
	}
	p.last = now
	p.shown = true
	fmt.Fprintf(p.W, "\r\x1b[K%6.1fs  %s", now.Sub(p.start).Seconds(), line)
}

// Done clears the status line.
func (p *Progress) Done() {
	if p == nil || !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.W, "\r\x1b[K")
	}
}

// Rate formats a count per second.
func Rate(n int64, d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	r := float64(n) / d.Seconds()
	switch {
	case r >= 1e9:
		return fmt.Sprintf("%.2fG/s", r/1e9)
	case r >= 1e6:
		return fmt.Sprintf("%.2fM/s", r/1e6)
	case r >= 1e3:
		return fmt.Sprintf("%.1fk/s", r/1e3)
	}
	return fmt.Sprintf("%.0f/s", r)
}
