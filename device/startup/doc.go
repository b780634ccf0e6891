// Package startup is how a search's devices are opened without anyone
// waiting for them: the policy that every algorithm's engines share and
// that the command line and a Go program calling mcs.Solve,
// clique.Maximum or vertexcover.Solve get alike.
//
// Opening a GPU (driver, context, module) takes a few tenths of a second,
// longer than most easy instances take on the CPU. So an engine that may
// run on a device names a Selection (which devices: backend.Selection, as
// --backend, --device and ARBOR_* give it) and the algorithm opens it with
// a Strategy (at once, after a head start, or only when asked) under its
// placement Rule (mcs.Place, clique.Place, vertexcover.Place: which of
// the opened devices the engine gets, and what to fall back to). The
// Opening that results is handed to the engine (the algorithms'
// Options.Opening), which starts its CPU search at once and lets the
// device join when it is ready; its Report says what was decided.
//
// Why a package of its own: its users are the algorithms' auto engines
// and their callers (the command line, bench, programs), none of which
// needs the device search-tree layer (device/search) to open a device;
// it depends on backend alone, so anything above backend may import it.
package startup
