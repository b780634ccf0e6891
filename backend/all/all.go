// Package all registers every backend Arbor ships: import it for its side
// effect where a program or test wants all of them.
package all

import (
	_ "github.com/arbor-gpu/arbor/cpu" // always present
)
