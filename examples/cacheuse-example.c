/* cacheuse-example.c — why inclusive cache-use costs need back-dating.

   Two call chains with opposite cache behaviour take turns:

     main -> stream_outer -> stream_inner
         walks an 8 MiB array touching one 8-byte element per 64-byte
         cache line: every line loaded is used once, 56 of its 64 bytes
         are wasted (high AcCost, high SpLoss).

     main -> reuse_outer -> reuse_inner
         reads a 4 KiB array again and again: it stays in the L1 cache
         and every byte of every line is used (low AcCost, no SpLoss).

   A line's use is only known when it is evicted, which mostly happens
   while the *other* chain runs. Callgrind charges such costs only to
   the loading instruction (self cost) and cannot give them inclusively;
   callgrind-bd back-dates them, so stream_outer's inclusive cost shows
   the waste of the lines stream_inner loaded for it.

   Build and profile:
     gcc -g -O0 -o cacheuse-example cacheuse-example.c
     valgrind --tool=callgrind-bd --cache-sim=yes --cacheuse=yes \
         ./cacheuse-example
     callgrind_annotate --inclusive=yes callgrind.out.<pid>
*/
#include <stdio.h>

#define BIG_BYTES   (8u << 20)                 /* streamed: 8 MiB */
#define SMALL_BYTES 4096u                      /* reused: 4 KiB */
#define LINE        64u
#define CHUNKS      128u                       /* stream 64 KiB per call */
#define CHUNK_ELEMS (BIG_BYTES / sizeof(long) / CHUNKS)
#define STRIDE      (LINE / sizeof(long))      /* one element per line */
#define PASSES      2

static long big[BIG_BYTES / sizeof(long)];
static long small[SMALL_BYTES / sizeof(long)];

static void init_arrays(void)
{
    for (unsigned i = 0; i < BIG_BYTES / sizeof(long); i += STRIDE)
        big[i] = i;
    for (unsigned i = 0; i < SMALL_BYTES / sizeof(long); i++)
        small[i] = i;
}

/* Touches each line of one chunk once: one element of eight. */
static long stream_inner(const long *chunk)
{
    long sum = 0;
    for (unsigned i = 0; i < CHUNK_ELEMS; i += STRIDE)
        sum += chunk[i];
    return sum;
}

static long stream_outer(unsigned chunk)
{
    return stream_inner(big + (unsigned long)chunk * CHUNK_ELEMS);
}

/* Reads the whole small array: all bytes of its 64 lines. */
static long reuse_inner(void)
{
    long sum = 0;
    for (unsigned i = 0; i < SMALL_BYTES / sizeof(long); i++)
        sum += small[i];
    return sum;
}

static long reuse_outer(int times)
{
    long sum = 0;
    for (int t = 0; t < times; t++)
        sum += reuse_inner();
    return sum;
}

int main(void)
{
    long sum = 0;
    init_arrays();
    for (int pass = 0; pass < PASSES; pass++)
        for (unsigned c = 0; c < CHUNKS; c++) {
            sum += stream_outer(c);     /* evicts the small array's lines */
            sum += reuse_outer(4);      /* evicts the streamed lines */
        }
    printf("cacheuse-example: %ld\n", sum);
    return 0;
}
