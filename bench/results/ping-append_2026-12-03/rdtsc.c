#include <stdio.h>
#include <stdint.h>
#include <time.h>
#include <x86intrin.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(void){
  const long N=50000000; volatile uint64_t sink=0; uint64_t s=0;
  double t0=now(); for(long i=0;i<N;i++){ s+=__rdtsc(); } double t1=now(); sink=s;
  s=0; double t2=now(); for(long i=0;i<N;i++){ s+=i*3; __asm__ volatile(""::"r"(s)); } double t3=now(); sink=s;
  printf("rdtsc: %.2f ns each; empty loop %.2f ns\n",(t1-t0)/N*1e9,(t3-t2)/N*1e9);
  return (int)(sink&1)*0;
}
