// A large kernel for compile-time benchmarks: unrolled arithmetic, branches and memory traffic.
#define STEP(k) { float t = a[(i + k) & 1023]; acc = fmaf(acc, t, (float)k); if (t > acc) acc -= t * 0.5f; else acc += t; x ^= (x << 3) + k; }
__global__ void big(const float* __restrict__ a, float* out, int* cnt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.f; unsigned x = i;
#pragma unroll
  for (int k = 0; k < 256; ++k) STEP(k)
  for (int j = 0; j < n; ++j) { acc += a[j & 1023] * (float)j; if (acc > 1e6f) { atomicAdd(cnt, 1); acc = 0.f; } }
  out[i] = acc + (float)x;
}
