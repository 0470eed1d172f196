/* missclass-work.c -- workloads for perf/missclass.sh: the cost of
   --miss-class and --reuse-dist on three kinds of programs.

     stream   sweeps a 16 MiB array (every line once per sweep: capacity
              misses at every level, reuse distances beyond L1)
     random   random reads and writes in a 4 MiB table (misses of all
              classes, long reuse distances)
     calls    deep recursion with little data (call/return heavy: the
              extra events lengthen every cost array the call tracker
              copies)

   usage: missclass-work stream|random|calls [scale]                     */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long stream(long scale)
{
    size_t n = (16u << 20) / sizeof(long), i;
    long *a = calloc(n, sizeof(long)), s = 0, r;
    for (r = 0; r < scale; r++)
        for (i = 0; i < n; i += 2)
            s += a[i]++;
    free(a);
    return s;
}

static long random_rw(long scale)
{
    size_t n = (4u << 20) / sizeof(long), i;
    long *a = calloc(n, sizeof(long)), s = 0;
    unsigned long x = 88172645463325252ul;
    for (i = 0; i < (size_t)scale * 1000000; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        if (x & 1) a[x % n] += (long)i;
        else s += a[x % n];
    }
    free(a);
    return s;
}

static long fib(int k, long *memo_unused)
{
    return k < 2 ? k : fib(k - 1, memo_unused) + fib(k - 2, memo_unused);
}

static long calls(long scale)
{
    long s = 0, r;
    for (r = 0; r < scale; r++)
        s += fib(22, NULL);
    return s;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "stream";
    long scale = argc > 2 ? atol(argv[2]) : 1;
    long s;
    if (!strcmp(mode, "stream")) s = stream(scale);
    else if (!strcmp(mode, "random")) s = random_rw(scale);
    else if (!strcmp(mode, "calls")) s = calls(scale);
    else { fprintf(stderr, "usage: %s stream|random|calls [scale]\n", argv[0]); return 2; }
    printf("%s %ld\n", mode, s);
    return 0;
}
