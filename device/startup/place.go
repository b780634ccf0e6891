package startup

import "github.com/arbor-gpu/arbor/backend"

// Placement is where an engine runs: which of the devices a caller
// opened it gets, decided by the algorithm (mcs.Place, clique.Place,
// vertexcover.Place) so that every caller — the command line, bench, a
// program — applies the same rules. The caller opens and closes the
// devices; the algorithm only chooses among them.
type Placement struct {
	// Devices are the devices the engine gets (nil: the CPU engine alone).
	Devices []backend.Device
	// Fallback, when set, says that no device could be opened and what
	// runs instead: worth telling the user whatever the verbosity.
	Fallback string
	// Note, when set, says why opened devices were left out (for a
	// verbose caller).
	Note string
}
