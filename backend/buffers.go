package backend

import "fmt"

// Buffers owns a group of device buffers that are freed together: the
// bookkeeping of an engine or wrapper with several temporaries. After the
// first failure every further allocation returns nil and Err reports it, so
// a run of allocations needs one error check at the end.
type Buffers struct {
	dev  Device
	q    Queue
	list []Buffer
	err  error
}

// NewBuffers returns an empty set allocating on dev and uploading through q.
func NewBuffers(dev Device, q Queue) *Buffers { return &Buffers{dev: dev, q: q} }

// Add adopts the result of an allocation call, e.g.
// b.Add(AllocN[int32](dev, n)).
func (b *Buffers) Add(buf Buffer, err error) Buffer {
	if err != nil {
		if b.err == nil {
			b.err = err
		}
		if buf != nil {
			buf.Free()
		}
		return nil
	}
	if b.err != nil {
		buf.Free()
		return nil
	}
	b.list = append(b.list, buf)
	return buf
}

// Alloc allocates bytes (at least 8, so empty inputs still get a buffer).
func (b *Buffers) Alloc(bytes int) Buffer {
	if b.err != nil {
		return nil
	}
	buf, err := b.dev.Alloc(max(bytes, 8))
	if err != nil {
		return b.Add(nil, fmt.Errorf("alloc %d bytes: %w", bytes, err))
	}
	return b.Add(buf, nil)
}

// Err is the first allocation or upload error, or nil.
func (b *Buffers) Err() error { return b.err }

// Free frees every buffer of the set.
func (b *Buffers) Free() {
	for _, buf := range b.list {
		buf.Free()
	}
	b.list = nil
}

// Upload allocates a buffer in set b holding s.
func Upload[T Scalar](b *Buffers, s []T) Buffer {
	if b.err != nil {
		return nil
	}
	return b.Add(AllocSlice(b.dev, b.q, s))
}

// AllocIn allocates a buffer in set b for n elements of T.
func AllocIn[T Scalar](b *Buffers, n int) Buffer {
	if b.err != nil {
		return nil
	}
	return b.Add(AllocN[T](b.dev, n))
}

// CheckSpan is the range check every backend makes before it touches a
// buffer: [off, off+n) must lie within the buffer's size bytes. The error
// starts with the backend's name and says what the range was for.
func CheckSpan(backendName, what string, off, n, size int) error {
	if off < 0 || n < 0 || off > size || n > size-off {
		return fmt.Errorf("%s: %s [%d, %d) outside buffer of %d bytes", backendName, what, off, off+n, size)
	}
	return nil
}

// CheckFill checks the range of a fill with a 4-byte value: within the
// buffer and 4-byte aligned at both ends.
func CheckFill(backendName string, off, n, size int) error {
	if err := CheckSpan(backendName, "fill", off, n, size); err != nil {
		return err
	}
	if off%4 != 0 || n%4 != 0 {
		return fmt.Errorf("%s: fill [%d, %d) is not 4-byte aligned", backendName, off, off+n)
	}
	return nil
}

// CheckCopy checks both ranges of a buffer-to-buffer copy of n bytes.
func CheckCopy(backendName string, srcOff, srcSize, dstOff, dstSize, n int) error {
	if err := CheckSpan(backendName, "copy source", srcOff, n, srcSize); err != nil {
		return err
	}
	return CheckSpan(backendName, "copy destination", dstOff, n, dstSize)
}
