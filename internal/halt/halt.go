// Package halt ties a search's stop to a context.
package halt

import "context"

// OnDone calls halt once ctx is done: before it returns when ctx is done
// already (so that a search never starts on a cancelled context), else
// from context.AfterFunc's goroutine. The returned stop ends the watch.
func OnDone(ctx context.Context, halt func()) (stop func() bool) {
	stop = context.AfterFunc(ctx, halt)
	if ctx.Err() != nil {
		halt()
	}
	return stop
}
