#include <stdio.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(void){ const long N=5000000; struct timespec t; long s=0; double t0=now(); for(long i=0;i<N;i++){clock_gettime(CLOCK_MONOTONIC,&t); s+=t.tv_nsec;} double t1=now(); printf("clock_gettime: %.2f ns each (%ld)\n",(t1-t0)/N*1e9, s&1); return 0;}
