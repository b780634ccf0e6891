//go:build windows

package opencl

import "syscall"

// Loading a DLL: LoadLibrary and GetProcAddress.

func dlopen(path string) (uintptr, error) {
	h, err := syscall.LoadLibrary(path)
	return uintptr(h), err
}

func dlsym(h uintptr, name string) (uintptr, error) {
	return syscall.GetProcAddress(syscall.Handle(h), name)
}

func dlclose(h uintptr) { syscall.FreeLibrary(syscall.Handle(h)) }
