package mcs

// donate gives away one not-yet-started child of the shallowest node on
// this worker's path that has one: a next candidate of the innermost
// graph (with the outer graphs' current vertices), or, once the nested
// loops have nothing left to start, the "v unmatched" continuation.
// Candidates of outer graphs are not given away (each is a set of
// children, not one node); the owner's next inner loop offers them.
func (w *manyWorker[C]) donate(depth int) {
	k := w.p.k
	last := k - 1
	for d := 0; d < depth; d++ {
		f := &w.frames[d]
		if cands := w.cands[d*k+last]; w.next[d*k+last] < len(cands) {
			t := make([]int32, f.pathLen, f.pathLen+k)
			copy(t, w.path[:f.pathLen])
			t = append(t, w.cur[f.row*k:f.row*k+last]...)
			t = append(t, cands[w.next[d*k+last]])
			w.next[d*k+last]++
			w.sh.q.Push(t)
			return
		}
		exhausted := true
		for j := 1; j < k; j++ {
			exhausted = exhausted && w.next[d*k+j] >= len(w.cands[d*k+j])
		}
		if exhausted && !f.skipGiven {
			f.skipGiven = true
			t := make([]int32, f.pathLen, f.pathLen+k)
			copy(t, w.path[:f.pathLen])
			t = append(t, f.v)
			for j := 1; j < k; j++ {
				t = append(t, -1)
			}
			w.sh.q.Push(t)
			return
		}
	}
}

// rebuild resets the worker to the root and follows path down to the
// node it names: its classes in w.levels[0], its tuples in w.cur.
func (w *manyWorker[C]) rebuild(path []int32) {
	p := w.p
	k := p.k
	for j := range w.sets {
		copy(w.sets[j], p.sets[j])
	}
	w.cur = w.cur[:0]
	w.path = append(w.path[:0], path...)
	lv := &w.levels[0]
	lv.cs = append(lv.cs[:0], p.root.cs...)
	lv.sp = append(lv.sp[:0], p.root.sp...)
	for o := 0; o < len(path); o += k {
		op := path[o : o+k]
		lv := &w.levels[0]
		i := w.findFirst(lv, op[0])
		for j := 0; j < k; j++ {
			if j > 0 && op[j] < 0 {
				break
			}
			s := &lv.sp[i*k+j]
			seg := w.sets[j][s.lo : s.lo+s.n]
			for t := range seg {
				if seg[t] == op[j] {
					seg[t], seg[len(seg)-1] = seg[len(seg)-1], op[j]
					break
				}
			}
			s.n--
		}
		if op[1] < 0 { // v unmatched
			if s0 := lv.sp[i*k]; s0.n == 0 {
				last := len(lv.cs) - 1
				lv.cs[i] = lv.cs[last]
				copy(lv.sp[i*k:i*k+k], lv.sp[last*k:last*k+k])
				lv.cs = lv.cs[:last]
				lv.sp = lv.sp[:last*k]
			} else {
				lv.cs[i].minL = minOf(w.sets[0][s0.lo : s0.lo+s0.n])
			}
			continue
		}
		split := w.splits[0]
		if cap(split) < len(lv.cs)*k {
			split = make([]int32, len(lv.cs)*k)
		}
		split = split[:len(lv.cs)*k]
		w.splits[0] = split
		if !p.multiway {
			v := int(op[0])
			w.splitFirst(lv, split, p.adj[0][v*p.n[0]:v*p.n[0]+p.n[0]])
			for j := 1; j < k; j++ {
				x := int(op[j])
				w.splitOther(lv, split, j, p.adj[j][x*p.n[j]:x*p.n[j]+p.n[j]])
			}
		}
		w.cur = append(w.cur, op...)
		w.child(0)
		w.levels[0], w.levels[1] = w.levels[1], w.levels[0]
	}
}

// findFirst returns the class whose first-graph set holds v.
func (w *manyWorker[C]) findFirst(lv *level, v int32) int {
	k := w.p.k
	for i := range lv.cs {
		s := lv.sp[i*k]
		for _, x := range w.sets[0][s.lo : s.lo+s.n] {
			if x == v {
				return i
			}
		}
	}
	panic("mcs: rebuilding a node: vertex not in any class") // a broken path is a bug
}
