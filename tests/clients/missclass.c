/* missclass.c -- access patterns with known miss classes and reuse
   distances (tests/tool/missclass.py derives the expected numbers).

   Built with -O2: each kernel is a leaf whose only data accesses are its
   volatile one-byte reads (one per 64-byte line) and the read of its
   return address by `ret`.  Geometry of the test: D1 8192,2,64 (64 sets,
   128 lines), LL 262144,8,64 (512 sets, 4096 lines).  Arrays start at
   64 KiB boundaries, so line k of an array is in D1 set k % 64 and LL set k % 512.
   Conflict kernels use a D1 set chosen away from the stack line holding
   the return address, so that `ret` hits there. */
#include <stdint.h>
#include <stdio.h>

#define LINE 64
#define NOINLINE __attribute__((noinline))
/* One pool, the arrays at 64 KiB boundaries inside it (an aligned
   attribute of 64 KiB would give the ELF file a segment Valgrind 3.19
   reads no debug information for). */
#define KB 1024u
static char pool[1024 * KB + 64 * KB];
static char *first_a, *cap_a, *conf_a, *llconf_a, *llcap_a;

static void place_arrays(void)
{
    char *base = (char *)(((uintptr_t)pool + 64 * KB - 1) & ~(uintptr_t)(64 * KB - 1));
    llcap_a = base;                 /* 8192 lines = 512 KiB */
    llconf_a = base + 512 * KB;     /* 9 x 512 lines = 288 KiB */
    conf_a = base + 832 * KB;       /* 3 x 64 lines = 12 KiB */
    cap_a = base + 896 * KB;        /* 256 lines = 16 KiB */
    first_a = base + 960 * KB;      /* 64 lines = 4 KiB */
}

/* The address of the slot holding this function's return address: the
   same slot the kernels' `ret` reads, as main calls them all from the
   same stack depth. */
NOINLINE static uintptr_t return_slot(void)
{
    return (uintptr_t)__builtin_frame_address(0) + sizeof(void *);
}

/* Reads one byte of each of `lines` lines `stride` lines apart, `rounds`
   times, starting at line `first` of a. */
static inline long sweep(const volatile char *a, unsigned first,
                         unsigned lines, unsigned stride, int rounds)
{
    long sum = 0;
    for (int r = 0; r < rounds; r++)
        for (unsigned i = 0; i < lines; i++)
            sum += a[(first + i * stride) * LINE];
    return sum;
}

/* 64 lines once: one per D1 set. */
NOINLINE long first_sweep(const char *a) { return sweep(a, 0, 64, 1, 1); }

/* 256 lines (2x D1) 4 times. */
NOINLINE long capacity_sweep(const char *a) { return sweep(a, 0, 256, 1, 4); }

/* 3 lines of one D1 set (64 lines apart), 20 rounds. */
NOINLINE long conflict_stride(const char *a, unsigned set) { return sweep(a, set, 3, 64, 20); }

/* 9 lines of one LL set (512 lines apart, so one D1 set too), 10 rounds. */
NOINLINE long ll_conflict(const char *a, unsigned set) { return sweep(a, set, 9, 512, 10); }

/* 8192 lines (2x LL) 3 times. */
NOINLINE long ll_capacity(const char *a) { return sweep(a, 0, 8192, 1, 3); }

int main(void)
{
    long s = 0;
    unsigned stack_set = (unsigned)(return_slot() / LINE) % 64;
    unsigned set = (stack_set + 32) % 64;  /* away from the stack line */

    place_arrays();
    s += first_sweep(first_a);
    s += capacity_sweep(cap_a);
    s += conflict_stride(conf_a, set);
    s += ll_conflict(llconf_a, set);
    s += ll_capacity(llcap_a);             /* last: it flushes LL */
    printf("missclass %ld\n", s);
    return 0;
}
