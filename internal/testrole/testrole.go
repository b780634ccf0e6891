// Package testrole lets a test binary play another program in a child
// process (a cluster worker or server, the arbor CLI, a solver for the
// bench harness, a process that faults the GPU): the parent sets one
// environment variable, ARBOR_TEST_ROLE, to the role and its parameters,
// and the child's TestMain (or test) reads it before anything else. One
// name for every package keeps such plumbing out of the list of knobs
// (docs/env.md).
package testrole

import (
	"net/url"
	"os"
	"strings"
)

// Var is the variable that names the role.
const Var = "ARBOR_TEST_ROLE"

// Value is the variable's value for role with parameters given as key,
// value pairs: "role" or "role?key=value&…".
func Value(role string, kv ...string) string {
	if len(kv) == 0 {
		return role
	}
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return role + "?" + v.Encode()
}

// Env is the VAR=value entry of Value, for an exec.Cmd's Env (a later
// entry replaces an earlier one there).
func Env(role string, kv ...string) string { return Var + "=" + Value(role, kv...) }

// Get returns the role this process plays ("": none, run the tests) and
// its parameters.
func Get() (string, url.Values) {
	role, query, _ := strings.Cut(os.Getenv(Var), "?")
	params, _ := url.ParseQuery(query)
	return role, params
}

// Is reports whether this process plays role.
func Is(role string) bool {
	r, _ := Get()
	return r == role
}
