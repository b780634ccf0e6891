package kernels

// primitiveChecks lists the checks of the search-tree primitives (scan,
// segmented reduction, compaction, argmax, reduce, bitset). Placeholder until
// the primitives land.
func primitiveChecks(dataDir string) []Check { return nil }
