package main

import "github.com/arbor-gpu/arbor/backend"

// demoMCSStep is the mcs part of 'arbor demo'; nil until it lands.
var _ = backend.Device(nil)

func demoMCS() func(e *env, dev backend.Device) error { return nil }
