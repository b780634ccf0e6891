package testrole

import (
	"strings"
	"testing"
)

// TestRoundTrip: what Env writes, Get reads back, parameters with the
// characters a temporary folder's path may hold included.
func TestRoundTrip(t *testing.T) {
	env := Env("server", "dir", "/tmp/a b&c=d?e", "port", "4222")
	name, value, _ := strings.Cut(env, "=")
	if name != Var {
		t.Fatalf("Env wrote %q, want the variable %s", env, Var)
	}
	t.Setenv(Var, value)
	role, params := Get()
	if role != "server" || params.Get("dir") != "/tmp/a b&c=d?e" || params.Get("port") != "4222" {
		t.Errorf("Get() = %q, %v", role, params)
	}
	if !Is("server") || Is("worker") {
		t.Error("Is disagrees with Get")
	}
	t.Setenv(Var, "")
	if role, _ := Get(); role != "" {
		t.Errorf("unset: role %q, want none", role)
	}
	if Value("cli") != "cli" {
		t.Errorf("Value without parameters = %q", Value("cli"))
	}
}
