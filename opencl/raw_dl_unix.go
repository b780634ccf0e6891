//go:build unix

package opencl

import "github.com/ebitengine/purego"

// Loading a shared library: dlopen through purego (no cgo).

func dlopen(path string) (uintptr, error) {
	return purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
}

func dlsym(h uintptr, name string) (uintptr, error) { return purego.Dlsym(h, name) }

func dlclose(h uintptr) { purego.Dlclose(h) }
