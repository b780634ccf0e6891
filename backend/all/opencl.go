package all

import (
	_ "github.com/arbor-gpu/arbor/opencl" // OpenCL devices, when an ICD loader and platform exist
)
