package device

import "fmt"

// SubgroupTwin is a sub-group of Lanes lanes as a Go twin models it: each
// lane's register is one element of a slice indexed by lane, and the
// operations are the prelude's arbor_sg_* (ballot, any, shuffle), taken
// by every lane at once. Twins use it where the kernel's sub-group route
// differs in form from its work-group route (clique's colouring), so that
// the twin runs the kernel's sub-group code at 32 and at 64 lanes.
type SubgroupTwin struct{ Lanes int }

// NewSubgroupTwin checks that the width is one a ballot word can hold.
func NewSubgroupTwin(lanes int) (SubgroupTwin, error) {
	if lanes < 1 || lanes > 64 || lanes&(lanes-1) != 0 {
		return SubgroupTwin{}, fmt.Errorf("device: a sub-group of %d lanes (want a power of two up to 64)", lanes)
	}
	return SubgroupTwin{Lanes: lanes}, nil
}

// Ballot is arbor_sg_ballot: bit l set where pred holds on lane l.
func (s SubgroupTwin) Ballot(pred func(lane int) bool) uint64 {
	var m uint64
	for l := 0; l < s.Lanes; l++ {
		if pred(l) {
			m |= 1 << uint(l)
		}
	}
	return m
}

// Any is arbor_sg_any.
func (s SubgroupTwin) Any(pred func(lane int) bool) bool { return s.Ballot(pred) != 0 }

// ShuffleU64 is arbor_sg_shfl_u64: lane src's register, on every lane.
func (s SubgroupTwin) ShuffleU64(reg []uint64, src int) uint64 {
	if src < 0 || src >= s.Lanes {
		panic(fmt.Sprintf("device: shuffle from lane %d of %d", src, s.Lanes))
	}
	return reg[src]
}
