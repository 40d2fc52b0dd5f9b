// Eval-style kernels for the scalar optimization benchmark (bench/opt). Compiled with
// `nvcc -arch=sm_90 -ptx kernels.cu`; one PTX entry per kernel.

extern "C" __global__ void switch_op(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = in[i];
  int r;
  switch (x & 7) {
    case 0: r = x + 1; break;
    case 1: r = x * 3; break;
    case 2: r = x - 7; break;
    case 3: r = x ^ 0x55; break;
    case 5: r = x << 2; break;
    default: r = 0; break;
  }
  out[i] = r;
}

extern "C" __global__ void nested_cond(const int* a, const int* b, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int x = a[i], y = b[i];
    int r = 0;
    if (x > 0) {
      if (y > 0) r = x + y;
      else r = x - y;
    } else if (y > x) {
      r = y;
    }
    out[i] = r;
  }
}

extern "C" __global__ void loop_sum(const float* a, float* out, int n, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int k = 0; k < n; ++k) s += a[i + k * stride];
  out[i] = s;
}

extern "C" __global__ void reduce_shared(const float* in, float* out) {
  __shared__ float buf[128];
  unsigned t = threadIdx.x;
  buf[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = buf[0];
}

extern "C" __global__ void clamp_select(const float* a, float* out, float lo, float hi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i];
  if (x < lo) x = lo;
  if (x > hi) x = hi;
  out[i] = x;
}
