package prim

import "github.com/arbor-gpu/arbor/backend"

func init() {
	backend.RegisterTwin("segreduce_i32", segReduceTwin)
}

// laneSlots calls fn for each item index (segment or row) the group owns
// when lanes work-items share one: groups loop over blocks of size/lanes.
func laneSlots(g *backend.Group, count, lanes int, fn func(i int)) {
	per := g.Size[0] / lanes
	for first := g.ID[0] * per; first < count; first += g.Groups[0] * per {
		for i := first; i < min(first+per, count); i++ {
			fn(i)
		}
	}
}

// segReduceTwin is segreduce_i32: arguments offsets, values, segments,
// lanes, want, sums, maxes, argmax, lsum, lmax.
func segReduceTwin(g *backend.Group) {
	offsets, values := g.I32s(0), g.I32s(1)
	segments, lanes, want := int(g.I32(2)), int(g.I32(3)), g.I32(4)
	laneSlots(g, segments, lanes, func(s int) {
		var sum int64
		var m uint64
		for a := offsets[s]; a < offsets[s+1]; a++ {
			sum += int64(values[a])
			m = max(m, PackMax(values[a], uint32(a)))
		}
		key, idx := UnpackMax(m)
		if want&1 != 0 {
			g.I64s(5)[s] = sum
		}
		if want&2 != 0 {
			g.I32s(6)[s] = key
		}
		if want&4 != 0 {
			g.I32s(7)[s] = idx
		}
	})
}
