package opencl

// OpenCL constants from the Khronos headers (CL/cl.h, cl_ext.h), limited to
// those Arbor uses.

const (
	clTrue = 1

	// cl_platform_info
	clPlatformProfile    = 0x0900
	clPlatformVersion    = 0x0901
	clPlatformName       = 0x0902
	clPlatformVendor     = 0x0903
	clPlatformExtensions = 0x0904

	// cl_device_type
	clDeviceTypeCPU         = 1 << 1
	clDeviceTypeGPU         = 1 << 2
	clDeviceTypeAccelerator = 1 << 3
	clDeviceTypeAll         = 0xFFFFFFFF

	// cl_device_info
	clDeviceType              = 0x1000
	clDeviceMaxComputeUnits   = 0x1002
	clDeviceMaxWorkItemDims   = 0x1003
	clDeviceMaxWorkGroupSize  = 0x1004
	clDeviceMaxWorkItemSizes  = 0x1005
	clDeviceMaxClockFrequency = 0x100C
	clDeviceMaxMemAllocSize   = 0x1010
	clDeviceGlobalMemSize     = 0x101F
	clDeviceLocalMemSize      = 0x1023
	clDeviceAvailable         = 0x1027
	clDeviceCompilerAvailable = 0x1028
	clDeviceName              = 0x102B
	clDeviceVendor            = 0x102C
	clDriverVersion           = 0x102D
	clDeviceVersion           = 0x102F
	clDeviceExtensions        = 0x1030
	clDeviceOpenCLCVersion    = 0x103D
	// Sub-group widths, each behind its extension (cl_intel_subgroups,
	// cl_amd_device_attribute_query, cl_nv_device_attribute_query).
	clDeviceSubGroupSizesIntel = 0x4108
	clDeviceWavefrontWidthAMD  = 0x4043
	clDeviceWarpSizeNV         = 0x4003
	// clGetKernelSubGroupInfo (OpenCL 2.1): sub-groups in a work-group.
	clKernelSubGroupCountForNDRange = 0x2034
	clContextPlatform               = 0x1084
	clQueueProfilingEnable          = 1 << 1
	clMemReadWrite                  = 1 << 0
	clProgramBinarySizes            = 0x1165
	clProgramBinaries               = 0x1166
	clProgramKernelNames            = 0x1168
	clProgramBuildStatus            = 0x1181
	clProgramBuildLog               = 0x1183
	clKernelWorkGroupSize           = 0x11B0
	clEventCommandExecStatus        = 0x11D3
	clProfilingCommandStart         = 0x1282
	clProfilingCommandEnd           = 0x1283
	clInvalidBinary                 = -42
	clPlatformNotFoundKHR           = -1001
	clDeviceNotFound                = -1
	clBuildProgramFailure           = -11
	clInvalidBufferSize             = -61
	clMemObjectAllocFailure         = -4
	clOutOfResources                = -5
	clOutOfHostMemory               = -6
	clInvalidKernelName             = -46
	clCompilerNotAvailable          = -3
	clInvalidWorkGroupSize          = -54
	clExecStatusErrorForEvents      = -14
)
