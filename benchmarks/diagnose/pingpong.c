/*
 * pingpong.c: how long a cache line takes from one core to another on this machine.
 *
 *   gcc -O2 -pthread benchmarks/diagnose/pingpong.c -o /tmp/pingpong && /tmp/pingpong [CPU_A CPU_B]
 *
 * Two threads pinned to CPU_A and CPU_B (default 0 and 1) hand one counter back and forth 2,000,000 times; each
 * hand-off moves the counter's cache line to the other core. Prints the mean round trip in ns (two moves). Every
 * record a producer writes into a network buffer and a consumer reads on the other core pays such moves (issue 13,
 * benchmarks/README.md "Taking a buffer's lines before writing it").
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ROUND_TRIPS 2000000L

static _Atomic long counter __attribute__((aligned(128)));
static int cpu_b = 1;

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) {
        fprintf(stderr, "pingpong: cannot pin a thread to CPU %d\n", cpu);
        exit(2);
    }
}

static void *answer(void *unused) {
    (void) unused;
    pin(cpu_b);
    for (long i = 0; i < ROUND_TRIPS; i++) {
        while (atomic_load_explicit(&counter, memory_order_acquire) != 2 * i + 1) {
        }
        atomic_store_explicit(&counter, 2 * i + 2, memory_order_release);
    }
    return NULL;
}

int main(int argc, char **argv) {
    int cpu_a = argc > 2 ? atoi(argv[1]) : 0;
    cpu_b = argc > 2 ? atoi(argv[2]) : 1;
    pthread_t other;
    pin(cpu_a);
    pthread_create(&other, NULL, answer, NULL);
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long i = 0; i < ROUND_TRIPS; i++) {
        atomic_store_explicit(&counter, 2 * i + 1, memory_order_release);
        while (atomic_load_explicit(&counter, memory_order_acquire) != 2 * i + 2) {
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    pthread_join(other, NULL);
    double ns = (end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec);
    printf("CPU %d <-> CPU %d: round trip %.1f ns\n", cpu_a, cpu_b, ns / ROUND_TRIPS);
    return 0;
}
