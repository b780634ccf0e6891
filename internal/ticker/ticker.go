// Package ticker runs a callback at a fixed interval on its own goroutine:
// the progress reports of the CPU search engines.
package ticker

import (
	"sync"
	"time"
)

// DefaultInterval is used when Every is given an interval of 0 or less.
const DefaultInterval = 200 * time.Millisecond

// Every calls fn every interval until the returned stop is called; stop
// waits for a call in progress to return, so fn never runs after it.
func Every(interval time.Duration, fn func()) (stop func()) {
	if interval <= 0 {
		interval = DefaultInterval
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				fn()
			}
		}
	}()
	return func() { close(quit); wg.Wait() }
}
