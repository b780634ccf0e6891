package startuptest

import (
	"errors"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/cpu"
)

func TestOpenings(t *testing.T) {
	if o := Stuck(t); o.Done() {
		t.Fatal("a stuck opening is done")
	}
	if devs, err := Failed(errors.New("no GPU here")).Wait(); err == nil || err.Error() != "no GPU here" || len(devs) != 0 {
		t.Fatalf("failed opening: %v, %d devices", err, len(devs))
	}
	dev := cpu.New(1)
	start := time.Now()
	devs, err := After(3*time.Millisecond, dev).Wait()
	if err != nil || len(devs) != 1 || devs[0] != dev || time.Since(start) < 3*time.Millisecond {
		t.Fatalf("delayed opening: %v, %d devices after %v", err, len(devs), time.Since(start))
	}
}
