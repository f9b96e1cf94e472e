// memlat.c: dependent-load latency over a random cycle of each given size (MB; one 64-byte line per element), 1 s each.
// Build and run: gcc -O2 benchmarks/diagnose/memlat.c -o /tmp/memlat && /tmp/memlat 4 8 16. On a shared host the
// latency at a few MB shows how much of the shared L3 this guest gets at the moment (benchmarks/README.md, session 14).
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <stdint.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  for(int a=1;a<argc;a++){
    size_t mb=atoi(argv[a]); size_t n=mb*1024*1024/64;
    uint64_t *m=aligned_alloc(64,n*64); size_t *perm=malloc(n*sizeof(size_t));
    for(size_t i=0;i<n;i++)perm[i]=i;
    srand(42); for(size_t i=n-1;i>0;i--){size_t j=((size_t)rand()*RAND_MAX+rand())%(i+1);size_t t=perm[i];perm[i]=perm[j];perm[j]=t;}
    for(size_t i=0;i<n;i++)m[perm[i]*8]=perm[(i+1)%n]*8;
    size_t p=0; for(size_t i=0;i<n;i++)p=m[p];
    long loads=0; double t0=now(),t;
    do{for(int k=0;k<1000000;k++)p=m[p];loads+=1000000;}while((t=now())-t0<1.0);
    printf("%zu MB: %.1f ns/load%s\n",mb,(t-t0)*1e9/loads,p==12345?"!":"");
    free(m);free(perm);
  }
}
