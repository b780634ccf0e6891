//go:build race

package bench

// raceEnabled: the tests run under the race detector, whose children
// start slowly (about half a second each) and cannot run under an address
// space cap (the detector reserves terabytes of shadow memory).
const raceEnabled = true
