package opencl

import (
	"errors"
	"fmt"

	"github.com/arbor-gpu/arbor/backend"
)

// codeNames maps OpenCL status codes to their names in the Khronos headers.
var codeNames = map[int32]string{
	0:     "CL_SUCCESS",
	-1:    "CL_DEVICE_NOT_FOUND",
	-2:    "CL_DEVICE_NOT_AVAILABLE",
	-3:    "CL_COMPILER_NOT_AVAILABLE",
	-4:    "CL_MEM_OBJECT_ALLOCATION_FAILURE",
	-5:    "CL_OUT_OF_RESOURCES",
	-6:    "CL_OUT_OF_HOST_MEMORY",
	-7:    "CL_PROFILING_INFO_NOT_AVAILABLE",
	-8:    "CL_MEM_COPY_OVERLAP",
	-9:    "CL_IMAGE_FORMAT_MISMATCH",
	-10:   "CL_IMAGE_FORMAT_NOT_SUPPORTED",
	-11:   "CL_BUILD_PROGRAM_FAILURE",
	-12:   "CL_MAP_FAILURE",
	-13:   "CL_MISALIGNED_SUB_BUFFER_OFFSET",
	-14:   "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST",
	-15:   "CL_COMPILE_PROGRAM_FAILURE",
	-16:   "CL_LINKER_NOT_AVAILABLE",
	-17:   "CL_LINK_PROGRAM_FAILURE",
	-18:   "CL_DEVICE_PARTITION_FAILED",
	-19:   "CL_KERNEL_ARG_INFO_NOT_AVAILABLE",
	-30:   "CL_INVALID_VALUE",
	-31:   "CL_INVALID_DEVICE_TYPE",
	-32:   "CL_INVALID_PLATFORM",
	-33:   "CL_INVALID_DEVICE",
	-34:   "CL_INVALID_CONTEXT",
	-35:   "CL_INVALID_QUEUE_PROPERTIES",
	-36:   "CL_INVALID_COMMAND_QUEUE",
	-37:   "CL_INVALID_HOST_PTR",
	-38:   "CL_INVALID_MEM_OBJECT",
	-39:   "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR",
	-40:   "CL_INVALID_IMAGE_SIZE",
	-41:   "CL_INVALID_SAMPLER",
	-42:   "CL_INVALID_BINARY",
	-43:   "CL_INVALID_BUILD_OPTIONS",
	-44:   "CL_INVALID_PROGRAM",
	-45:   "CL_INVALID_PROGRAM_EXECUTABLE",
	-46:   "CL_INVALID_KERNEL_NAME",
	-47:   "CL_INVALID_KERNEL_DEFINITION",
	-48:   "CL_INVALID_KERNEL",
	-49:   "CL_INVALID_ARG_INDEX",
	-50:   "CL_INVALID_ARG_VALUE",
	-51:   "CL_INVALID_ARG_SIZE",
	-52:   "CL_INVALID_KERNEL_ARGS",
	-53:   "CL_INVALID_WORK_DIMENSION",
	-54:   "CL_INVALID_WORK_GROUP_SIZE",
	-55:   "CL_INVALID_WORK_ITEM_SIZE",
	-56:   "CL_INVALID_GLOBAL_OFFSET",
	-57:   "CL_INVALID_EVENT_WAIT_LIST",
	-58:   "CL_INVALID_EVENT",
	-59:   "CL_INVALID_OPERATION",
	-60:   "CL_INVALID_GL_OBJECT",
	-61:   "CL_INVALID_BUFFER_SIZE",
	-62:   "CL_INVALID_MIP_LEVEL",
	-63:   "CL_INVALID_GLOBAL_WORK_SIZE",
	-64:   "CL_INVALID_PROPERTY",
	-65:   "CL_INVALID_IMAGE_DESCRIPTOR",
	-66:   "CL_INVALID_COMPILER_OPTIONS",
	-67:   "CL_INVALID_LINKER_OPTIONS",
	-68:   "CL_INVALID_DEVICE_PARTITION_COUNT",
	-69:   "CL_INVALID_PIPE_SIZE",
	-70:   "CL_INVALID_DEVICE_QUEUE",
	-71:   "CL_INVALID_SPEC_ID",
	-72:   "CL_MAX_SIZE_RESTRICTION_EXCEEDED",
	-1000: "CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR",
	-1001: "CL_PLATFORM_NOT_FOUND_KHR",
	-1002: "CL_INVALID_D3D10_DEVICE_KHR",
	-1057: "CL_DEVICE_PARTITION_FAILED_EXT",
	-1092: "CL_INVALID_COMMAND_BUFFER_KHR",
	// Not in the headers: what NVIDIA's driver returns after a kernel
	// faults (an out-of-bounds access, like CUDA's illegal address).
	-9999: "CL_NVIDIA_KERNEL_FAULT",
}

// CodeName returns the header name of an OpenCL status code, or
// "CL_ERROR(code)" for one it does not know.
func CodeName(code int32) string {
	if n, ok := codeNames[code]; ok {
		return n
	}
	return fmt.Sprintf("CL_ERROR(%d)", code)
}

// Error is a failed OpenCL call.
type Error struct {
	Code int32  // the status the call returned
	Call string // the C function, e.g. "clCreateBuffer"
	// oom marks an allocation failure: the caller may split the work or
	// fall back, so it matches backend.ErrOutOfMemory.
	oom bool
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s", e.Call, CodeName(e.Code))
}

// Is makes allocation failures match backend.ErrOutOfMemory.
func (e *Error) Is(target error) bool { return e.oom && target == backend.ErrOutOfMemory }

// Code reports the OpenCL status inside err, if there is one.
func Code(err error) (int32, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e.Code, true
	}
	return 0, false
}

// check turns a status into an error (nil for CL_SUCCESS). The two codes
// that mean memory ran out wherever they come from match ErrOutOfMemory;
// CL_OUT_OF_RESOURCES does only where an allocation reports it (allocFail),
// because after a launch it usually means the kernel faulted.
func check(call string, st int32) error {
	if st == 0 {
		return nil
	}
	return &Error{Code: st, Call: call, oom: st == clMemObjectAllocFailure || st == clOutOfHostMemory}
}

// allocFail is check for calls that allocate: every shortage is memory.
func allocFail(call string, st int32) error {
	if st == 0 {
		return nil
	}
	return &Error{Code: st, Call: call, oom: st == clMemObjectAllocFailure || st == clOutOfHostMemory ||
		st == clOutOfResources || st == clInvalidBufferSize}
}
