package cuda

import (
	"sync"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/backend/backendtest"
)

// spinBody is a kernel that keeps one thread busy for a given number of
// clock cycles and writes how many it counted: a long kernel that
// occupies one SM, so that two of them fit on the device side by side.
const spinBody = `
KERNEL void spin(GLOBAL long long* out, long long cycles) {
	long long t0 = clock64(), t = t0;
	while (t - t0 < cycles) t = clock64();
	if (get_global_id(0) == 0) out[0] = t - t0;
}
`

// spinOnce launches spin on q and waits with wait (Finish or a Read).
func spinOnce(q backend.Queue, k backend.Kernel, out backend.Buffer, cycles int64, read bool) error {
	if err := q.Launch(k, backend.R1(1, 1), backend.Buf(out), backend.I64(cycles)); err != nil {
		return err
	}
	if read {
		var got [8]byte
		return q.Read(out, 0, got[:])
	}
	return q.Finish()
}

// TestQueuesOverlap: two queues of one device run long kernels at the
// same time. Waiting for a stream (Finish, a blocking Read) must not hold
// the device's executor, or the second queue's launch waits for the
// first queue's kernel and the two run one after the other (2×).
func TestQueuesOverlap(t *testing.T) {
	d := openCUDA(t)
	_, k := build(t, d, "spin", spinBody, "spin")
	outs := []backend.Buffer{alloc(t, d, 8), alloc(t, d, 8)}
	qs := []backend.Queue{newQueue(t, d), newQueue(t, d)}

	// Calibrate: cycles for about 300 ms of one kernel.
	cycles := int64(1 << 20)
	var one time.Duration
	for {
		start := time.Now()
		if err := spinOnce(qs[0], k, outs[0], cycles, false); err != nil {
			t.Fatal(err)
		}
		one = time.Since(start)
		if one >= 200*time.Millisecond {
			break
		}
		cycles *= max(2, int64(300*time.Millisecond/max(one, time.Millisecond)))
	}
	for _, read := range []bool{false, true} {
		name := map[bool]string{false: "Finish", true: "Read"}[read]
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i := range qs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[i] = spinOnce(qs[i], k, outs[i], cycles, read)
				}()
			}
			wg.Wait()
			both := time.Since(start)
			for _, err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			t.Logf("one kernel %v, two on two queues %v (%.2f×)", one, both, both.Seconds()/one.Seconds())
			if both > one*16/10 {
				t.Errorf("two queues' kernels took %v against %v for one: they did not overlap", both, one)
			}
		})
	}

	// While one queue waits for a long kernel, another queue's short
	// round trips (fill, read back) go through at once.
	t.Run("short beside long", func(t *testing.T) {
		done := make(chan error, 1)
		go func() { done <- spinOnce(qs[0], k, outs[0], cycles, false) }()
		time.Sleep(one / 10) // the long kernel is running and waited for
		start := time.Now()
		for i := 0; i < 10; i++ {
			if err := qs[1].Fill(outs[1], 0, 8, uint32(i)); err != nil {
				t.Fatal(err)
			}
			var got [8]byte
			if err := qs[1].Read(outs[1], 0, got[:]); err != nil {
				t.Fatal(err)
			}
			if got[0] != byte(i) || got[4] != byte(i) {
				t.Fatalf("round trip %d read %v", i, got)
			}
		}
		short := time.Since(start)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		t.Logf("10 fill+read round trips beside a %v kernel: %v", one, short)
		if short > one/3 {
			t.Errorf("10 short round trips took %v beside a %v kernel: they waited for it", short, one)
		}
	})
}

// TestOpenPhases: an opened device reports where its start-up went, in
// order: loading, the context, a build, the first allocation, launch and
// wait.
func TestOpenPhases(t *testing.T) {
	d := openCUDA(t)
	_, k := build(t, d, "spin", spinBody, "spin")
	q := newQueue(t, d)
	out := alloc(t, d, 8)
	if err := spinOnce(q, k, out, 1000, true); err != nil {
		t.Fatal(err)
	}
	backendtest.CheckPhases(t, d.Phases(), time.Minute,
		"load libcuda", "cuInit", "primary context", "build spin: module load", "first allocation", "first launch", "first wait")
}
