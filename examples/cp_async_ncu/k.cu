// One warp writes shared memory once: mode 0 with cp.async (LDGSTS, W bytes per lane; lane l's global source is
// 16*l bytes into a buffer), mode 2 the same with the sources packed (W*l bytes), mode 1 with st.shared of W bytes
// (the reference).  Lane l writes shared byte offset A[l].
// Usage: ./k MODE W A0 .. A31 ; Nsight Compute counts the shared wavefronts of the launch.
#include <cstdio>
#include <cstdlib>
__global__ void llv_cp(const int* A, const int4* g, int* o, int mode, int w) {
  __shared__ __align__(1024) char s[8192];
  int l = threadIdx.x;
  unsigned a = (unsigned)__cvta_generic_to_shared(s) + A[l];
  const char* src = reinterpret_cast<const char*>(g) + (mode == 2 ? w : 16) * l;
  if (mode != 1) {
    if (w == 16) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(a), "l"(src));
    if (w == 8) asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(a), "l"(src));
    if (w == 4) asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(a), "l"(src));
    asm volatile("cp.async.wait_all;" ::: "memory");
  } else {
    int x = l, y = 2 * l, z = 3 * l, v = 4 * l;
    if (w == 16) asm volatile("st.shared.v4.b32 [%0], {%1,%2,%3,%4};" ::"r"(a), "r"(x), "r"(y), "r"(z), "r"(v));
    if (w == 8) asm volatile("st.shared.v2.b32 [%0], {%1,%2};" ::"r"(a), "r"(x), "r"(y));
    if (w == 4) asm volatile("st.shared.b32 [%0], %1;" ::"r"(a), "r"(x));
  }
  __syncwarp();
  o[l] = s[(l * 64) & 8191];  // keep the writes live
}
int main(int c, char** v) {
  if (c != 35) return 2;
  int h[32], *A, *o;
  int4* g;
  for (int i = 0; i < 32; i++) h[i] = atoi(v[3 + i]);
  if (cudaMalloc(&A, 128) || cudaMalloc(&o, 128) || cudaMalloc(&g, 32 * 16)) return 3;
  if (cudaMemcpy(A, h, 128, cudaMemcpyHostToDevice) || cudaMemset(g, 1, 32 * 16)) return 4;
  llv_cp<<<1, 32>>>(A, g, o, atoi(v[1]), atoi(v[2]));
  if (cudaGetLastError()) return 5;
  return cudaDeviceSynchronize() ? 6 : 0;
}
