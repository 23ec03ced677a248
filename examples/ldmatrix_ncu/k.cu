#include <cstdio>
#include <cstdlib>
#define L(t) asm volatile("ldmatrix.sync.aligned.m8n8.x4" t ".shared.b16 {%0,%1,%2,%3},[%4];":"=r"(x),"=r"(y),"=r"(z),"=r"(w):"r"(a))
#define S(t) asm volatile("stmatrix.sync.aligned.m8n8.x4" t ".shared.b16 [%0],{%1,%2,%3,%4};"::"r"(a),"r"(x),"r"(y),"r"(z),"r"(w))
__global__ void llv_k(int*R,int*o,int m){__shared__ __align__(1024) char s[4096];int l=threadIdx.x;unsigned a=(unsigned)__cvta_generic_to_shared(s)+16*R[l],x=l,y=l,z=l,w=l;
if(m==0)L("");if(m==1)L(".trans");if(m==2)S("");if(m==3)S(".trans");o[l]=x^y^z^w;}
int main(int c,char**v){int h[32],*R,*o;for(int i=0;i<32;i++)h[i]=atoi(v[2+i]);cudaMalloc(&R,128);cudaMalloc(&o,128);cudaMemcpy(R,h,128,cudaMemcpyHostToDevice);llv_k<<<1,32>>>(R,o,atoi(v[1]));return cudaDeviceSynchronize();}
