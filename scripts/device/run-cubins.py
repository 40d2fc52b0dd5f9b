#!/usr/bin/env python3
"""Run ZLUDA io cases from cubins on a GPU with the CUDA driver API (ctypes on libcuda, no other dependency).

    python3 scripts/device/run-cubins.py DIR/manifest.json

DIR/manifest.json comes from scripts/device/make-cases.mjs. Each case: cuModuleLoadData on the cubin's bytes,
cuModuleGetFunction(kernel), an input buffer with the case's bytes and a zeroed output buffer of the expected
size, cuLaunchKernel(grid 1x1x1, block 1x1x1, 256 bytes dynamic shared memory, params = (input, output)
truncated to the kernel's parameter count), cuCtxSynchronize, read the output back and compare. The last line
is `device <arch> (<compiler>): N passed, M failed`; failures are listed with their reason above it.

UNTESTED: written in a session without a GPU (see docs/device-harness.md). The driver calls follow the CUDA
driver API reference (the _v2 entry points that cuda.h maps the plain names to).
"""
import ctypes
import json
import os
import sys

CUDA_SUCCESS = 0


class CudaError(Exception):
    pass


def load_driver():
    for name in ("libcuda.so.1", "libcuda.so", "nvcuda.dll"):
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    raise CudaError("the CUDA driver library (libcuda.so.1) is not found: is this a GPU machine?")


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    manifest_path = argv[1]
    with open(manifest_path) as f:
        manifest = json.load(f)
    base = os.path.dirname(os.path.abspath(manifest_path))
    cu = load_driver()
    u64 = ctypes.c_uint64

    def check(rc, what):
        if rc != CUDA_SUCCESS:
            name = ctypes.c_char_p()
            cu.cuGetErrorName(rc, ctypes.byref(name))
            raise CudaError(f"{what}: {name.value.decode() if name.value else rc}")

    check(cu.cuInit(0), "cuInit")
    dev = ctypes.c_int()
    check(cu.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
    major, minor = ctypes.c_int(), ctypes.c_int()
    check(cu.cuDeviceGetAttribute(ctypes.byref(major), 75, dev), "cuDeviceGetAttribute(major)")  # COMPUTE_CAPABILITY_MAJOR
    check(cu.cuDeviceGetAttribute(ctypes.byref(minor), 76, dev), "cuDeviceGetAttribute(minor)")  # COMPUTE_CAPABILITY_MINOR
    ctx = ctypes.c_void_p()
    check(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    check(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    print(f"device: sm_{major.value}{minor.value}, manifest for {manifest['arch']} ({manifest['compiler']})")

    passed, failures = 0, []
    for case in manifest["cases"]:
        name = case["name"]
        if "error" in case:
            failures.append(f"{name}: not compiled: {case['error']}")
            continue
        module = ctypes.c_void_p()
        bufs = []
        try:
            with open(os.path.join(base, case["cubin"]), "rb") as f:
                image = f.read()
            check(cu.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(image)), "cuModuleLoadData")
            fn = ctypes.c_void_p()
            check(cu.cuModuleGetFunction(ctypes.byref(fn), module, case["kernel"].encode()), "cuModuleGetFunction")
            inp = bytes.fromhex(case["input"])
            expected = bytes.fromhex(case["expected"])
            ptrs = []
            for data, size in ((inp, max(len(inp), 1)), (b"\0" * len(expected), max(len(expected), 1))):
                p = u64()
                check(cu.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(size)), "cuMemAlloc")
                bufs.append(p)
                if data:
                    check(cu.cuMemcpyHtoD_v2(p, ctypes.c_char_p(data), ctypes.c_size_t(len(data))), "cuMemcpyHtoD")
                ptrs.append(p)
            count = min(case.get("params", 2), 2)
            args = (ctypes.c_void_p * max(count, 1))(*[ctypes.cast(ctypes.byref(ptrs[k]), ctypes.c_void_p) for k in range(count)])
            check(cu.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, case.get("sharedBytes", 0), None, args, None), "cuLaunchKernel")
            check(cu.cuCtxSynchronize(), "cuCtxSynchronize")
            got = ctypes.create_string_buffer(len(expected))
            if expected:
                check(cu.cuMemcpyDtoH_v2(got, ptrs[1], ctypes.c_size_t(len(expected))), "cuMemcpyDtoH")
            if got.raw[: len(expected)] == expected:
                passed += 1
            else:
                k = next(i for i in range(len(expected)) if got.raw[i] != expected[i])
                failures.append(f"{name}: output differs at byte {k}: expected {expected[k]:#04x}, got {got.raw[k]:#04x}")
        except CudaError as e:
            failures.append(f"{name}: {e}")
            if "ILLEGAL" in str(e) or "LAUNCH_FAILED" in str(e):
                # a sticky error poisons the context: report and stop rather than fail every later case
                failures.append("stopped: the context is unusable after a launch failure")
                break
        finally:
            for p in bufs:
                cu.cuMemFree_v2(p)
            if module.value:
                cu.cuModuleUnload(module)
    for f in failures:
        print(f"  {f}")
    print(f"device {manifest['arch']} ({manifest['compiler']}): {passed} passed, {len(failures)} failed")
    return 0 if not failures else 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except CudaError as e:
        print(f"run-cubins: error: {e}", file=sys.stderr)
        sys.exit(2)
