package main

import "github.com/arbor-gpu/arbor/backend"

// demoVCStep is the vc part of 'arbor demo'; nil until it lands.
var _ = backend.Device(nil)

func demoVC() func(e *env, dev backend.Device) error { return nil }
