package all

import (
	_ "github.com/arbor-gpu/arbor/cuda" // NVIDIA GPUs, when libcuda.so.1 and NVRTC are present
)
