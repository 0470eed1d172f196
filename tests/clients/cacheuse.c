/* Cache-use test client (the motivating example of the back-dating
   paper): two call chains with opposite cache behaviour, interleaved.

   - main -> stream_outer -> stream_inner reads an 8 MiB array with a
     stride of one element per 64-byte cache line: every line is used
     once, 8 of its 64 bytes (high AcCost, high SpLoss).
   - main -> reuse_outer -> reuse_inner reads a 4 KiB array completely,
     many times: its lines stay in L1 and are fully used (low cost).

   The lines' use is only known when they are evicted, usually while the
   other chain runs: that is what back-dated attribution must undo. */
#include <stdio.h>

#define BIG_BYTES   (8u << 20)
#define SMALL_BYTES 4096u
#define LINE        64u
#define CHUNKS      128u                      /* stream in 64 KiB chunks */
#define CHUNK_ELEMS (BIG_BYTES / sizeof(long) / CHUNKS)
#define STRIDE      (LINE / sizeof(long))     /* one element per line */
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

static long stream_inner(const long *p)
{
    long s = 0;
    for (unsigned i = 0; i < CHUNK_ELEMS; i += STRIDE)
        s += p[i];
    return s;
}

static long stream_outer(unsigned chunk)
{
    return stream_inner(big + (unsigned long)chunk * CHUNK_ELEMS);
}

static long reuse_inner(void)
{
    long s = 0;
    for (unsigned i = 0; i < SMALL_BYTES / sizeof(long); i++)
        s += small[i];
    return s;
}

static long reuse_outer(int times)
{
    long s = 0;
    for (int t = 0; t < times; t++)
        s += reuse_inner();
    return s;
}

int main(void)
{
    long s = 0;
    init_arrays();
    for (int pass = 0; pass < PASSES; pass++)
        for (unsigned c = 0; c < CHUNKS; c++) {
            s += stream_outer(c);
            s += reuse_outer(4);
        }
    printf("cacheuse: %ld\n", s);
    return 0;
}
